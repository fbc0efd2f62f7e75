import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  AgentIndexedV1,
  RegisterAgentV1,
  type AgentIndexedV1Event,
  type RegisterAgentV1Request,
  type RegisterAgentV1Response,
  type ReplyEnvelope,
} from '@ioa/contracts';

/**
 * The demo's client side: what a user of IoA does against a running stack. It speaks only the public protocols —
 * plain JSON over NATS (as an external agent would) and REST on the gateway — never our internal libraries beyond
 * the contract's constants and types.
 *
 * `runDemo` is the one function `npm run demo` calls; the next step of the project (goals end to end) replaces it
 * with: register agents, POST /v1/goals, follow the SSE stream, print the conclusion.
 */
export interface DemoContext {
  gatewayUrl: string;
  natsUrl: string;
  /** Prints one line of demo output. */
  say: (line?: string) => void;
}

export async function runDemo(context: DemoContext): Promise<void> {
  await demoAgentsApi(context);
}

// ---------------------------------------------------------------------------------------------------------------
// Issue 2: the agents API

const DEMO_OWNER = 'ioa-demo';

/** Varied sample agents, so the semantic search has something to rank. */
export const SAMPLE_AGENTS: RegisterAgentV1Request[] = [
  sampleAgent('contract-translator', 'Translates legal and business documents between English, French and German.', {
    id: 'translate-document',
    name: 'Translate a document',
    description: 'Faithful translation of contracts, letters and reports, keeping legal terminology precise.',
    tags: ['translation', 'legal', 'french', 'german'],
    examples: ['Translate this contract into French', 'Give me a German version of this letter'],
  }),
  sampleAgent('sales-statistician', 'Analyses tabular sales data and explains trends with statistics and charts.', {
    id: 'analyse-sales',
    name: 'Analyse sales data',
    description: 'Computes growth, seasonality and outliers from CSV sales figures and summarises what they mean.',
    tags: ['statistics', 'data-analysis', 'csv', 'forecasting'],
    examples: ['Which region grew fastest last quarter?', 'Forecast next month from this CSV'],
  }),
  sampleAgent('trip-planner', 'Plans trips: itineraries, train and flight options, hotels near the venue.', {
    id: 'plan-trip',
    name: 'Plan a trip',
    description: 'Builds a day-by-day itinerary within a budget, with transport and accommodation suggestions.',
    tags: ['travel', 'itinerary', 'booking'],
    examples: ['Plan three days in Lisbon for a conference', 'Cheapest way from Paris to Berlin on Friday'],
  }),
  sampleAgent('unit-test-writer', 'Writes unit tests for TypeScript and JavaScript code and explains failures.', {
    id: 'write-tests',
    name: 'Write unit tests',
    description: 'Reads a function and writes focused Jest tests covering edge cases; explains failing assertions.',
    tags: ['testing', 'typescript', 'javascript', 'code'],
    examples: ['Write tests for this parser', 'Why does this Jest test fail?'],
  }),
];

/** Queries the demo searches for, each with the agent that should rank first. */
export const SAMPLE_QUERIES: Array<{ q: string; expected: string }> = [
  { q: 'translate a contract into French', expected: 'contract-translator' },
  { q: 'write jest tests for my typescript function', expected: 'unit-test-writer' },
  { q: 'which region sold the most, from a spreadsheet of sales', expected: 'sales-statistician' },
];

function sampleAgent(
  name: string,
  description: string,
  skill: RegisterAgentV1Request['skills'][number],
): RegisterAgentV1Request {
  return {
    name,
    description,
    skills: [skill],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    owner: DEMO_OWNER,
    endpoint: { kind: 'nats' },
    version: '1.0.0',
    metadata: { sample: true },
  };
}

interface AgentListItem {
  id: string;
  name: string;
  status: string;
  skills: Array<{ name: string; tags: string[] }>;
  score?: number;
}

interface AgentListBody {
  items: AgentListItem[];
  total: number;
  model?: string;
}

/** Registers the sample agents over raw NATS, waits until discovery indexed them, then lists and searches via REST. */
export async function demoAgentsApi({ gatewayUrl, natsUrl, say }: DemoContext): Promise<void> {
  const nats = await connect({ servers: natsUrl.split(','), name: 'ioa-demo-client' });
  try {
    say('Registering sample agents over NATS (plain JSON request/reply, as any external agent would):');
    // Subscribe before registering: indexing follows registration asynchronously and may be quick.
    const indexed = collectIndexed(nats);
    const agents = new Map<string, number>();
    for (const card of SAMPLE_AGENTS) {
      const registered = await request<RegisterAgentV1Response>(nats, RegisterAgentV1.subject, card);
      // A card that already existed (a persistent IOA_DATA_DIR or DATABASE_URL) was indexed back then, and an
      // unchanged card publishes nothing new, so only new or changed revisions are waited for.
      if (registered.created) agents.set(registered.agent.id, registered.agent.revision);
      say(
        `  ${RegisterAgentV1.subject}  ${card.name.padEnd(20)} -> ${registered.agent.id} (${registered.created ? 'created' : 'updated'})`,
      );
    }
    await indexed.waitFor(agents, 30_000);
    say(`Discovery has indexed the ${agents.size} new agent(s).`);

    say();
    say(`GET ${gatewayUrl}/v1/agents`);
    const listing = await getJson<AgentListBody>(`${gatewayUrl}/v1/agents`);
    say(`  ${listing.total} agent(s):`);
    for (const agent of listing.items) {
      say(
        `  - ${agent.name.padEnd(20)} ${agent.status.padEnd(8)} skills: ${agent.skills.map((skill) => skill.name).join(', ')}`,
      );
    }
    const missing = SAMPLE_AGENTS.filter((card) => !listing.items.some((agent) => agent.name === card.name));
    if (missing.length > 0) throw new Error(`the listing lacks ${missing.map((card) => card.name).join(', ')}`);

    for (const { q, expected } of SAMPLE_QUERIES) {
      const url = `${gatewayUrl}/v1/agents?q=${encodeURIComponent(q)}&topK=3`;
      say();
      say(`GET ${url}`);
      const search = await getJson<AgentListBody>(url);
      say(`  best matches (model ${search.model ?? 'unknown'}):`);
      for (const agent of search.items) say(`  ${(agent.score ?? 0).toFixed(3)}  ${agent.name}`);
      if (search.items[0]?.name !== expected) {
        throw new Error(`expected ${expected} to rank first for "${q}", got ${search.items[0]?.name ?? 'nothing'}`);
      }
    }
  } finally {
    await nats.close();
  }
}

/** A request in the public protocol: JSON body, `{ok, data}` or `{ok: false, error}` back. */
async function request<T>(nats: NatsConnection, subject: string, body: unknown): Promise<T> {
  const reply = await nats.request(subject, JSON.stringify(body), { timeout: 10_000 });
  const envelope = JSON.parse(new TextDecoder().decode(reply.data)) as ReplyEnvelope<T>;
  if (!envelope.ok) throw new Error(`${subject} failed: ${envelope.error.code}: ${envelope.error.message}`);
  return envelope.data;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Listens to discovery's `indexed` events; `waitFor` resolves once every agent's revision (or a later one) is in. */
function collectIndexed(nats: NatsConnection) {
  const seen = new Map<string, number>();
  const subscription = nats.subscribe(AgentIndexedV1.subject);
  const pump = (async () => {
    for await (const message of subscription) {
      const event = JSON.parse(new TextDecoder().decode(message.data)) as AgentIndexedV1Event;
      if (event.indexed) seen.set(event.agentId, Math.max(seen.get(event.agentId) ?? 0, event.revision));
    }
  })();
  return {
    async waitFor(agents: Map<string, number>, timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      const done = () => [...agents].every(([id, revision]) => (seen.get(id) ?? -1) >= revision);
      while (!done()) {
        if (Date.now() > deadline) {
          subscription.unsubscribe();
          throw new Error(`discovery did not index every agent within ${timeoutMs / 1000} s`);
        }
        await new Promise((wake) => setTimeout(wake, 50));
      }
      subscription.unsubscribe();
      await pump;
    },
  };
}
