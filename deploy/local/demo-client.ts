import { randomUUID } from 'node:crypto';
import { IoaAgent, requestAgentIdentity, TaskRejectedError } from '@ioa/agent-sdk';
import {
  HEADER_IDEMPOTENCY_KEY,
  RegisterAgentV1,
  RegisterOwnAgentV1,
  type GoalEventV1,
  type GoalV1,
  type RegisterAgentV1Request,
} from '@ioa/contracts';
import { startA2aWeatherAgent } from './a2a-weather-agent.js';
import {
  EventStreamError,
  followEventStream,
  getJson,
  GoalEventView,
  oneLine,
  paint,
  sendJson,
  summarizeGoal,
  type Paint,
} from '@ioa/gateway-client';

/**
 * The demo's client side: what a user of IoA does against a running stack. It speaks only the public protocols —
 * REST and Server-Sent Events on the gateway, and plain JSON over NATS as an external agent would (through
 * @ioa/agent-sdk, the package an agent author installs) — never our internal libraries.
 *
 * `runDemo` is the one function `npm run demo` calls:
 * 1. the agents API (issue 2), briefly: sample agents join over NATS, the gateway lists them and ranks them for a
 *    need;
 * 2. the main job (issue 3): a goal goes in over REST, a team forms by itself from what discovery finds among all
 *    of them, and its conversation and tasks are followed live on the goal's event stream until the conclusion.
 */
export interface DemoContext {
  gatewayUrl: string;
  /** The local admin's API key: every REST call authenticates with it (`npm run demo` provisions it). */
  apiKey: string;
  natsUrl: string;
  /**
   * The broker authenticates (the local stack always does, unless pointed at an external broker without it): each
   * sample agent then joins as an external agent must, with its own key pair and a JWT the gateway issues for it
   * (POST /v1/agents/identities), acting on its own `ioa.agent.<id>.…` subjects.
   */
  brokerAuthenticates: boolean;
  /** Prints one line of demo output. */
  say: (line?: string) => void;
}

/**
 * The sample goal: three steps for three different agents. With the offline model the leader gives the code and
 * the question to the code runner and the document researcher as two asynchronous tasks running side by side,
 * pauses until both are done, then has the writer compose the report (a synchronous task) and concludes with it.
 * test/bench/model-tokens.bench.ts measures the model calls and tokens of this goal (with SAMPLE_AGENTS registered).
 */
export const DEMO_GOAL =
  'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.';

/** The agents agent-host registers when the stack starts. */
const BUILT_IN_AGENTS = ['code-runner', 'doc-researcher', 'writer'];

export async function runDemo(context: DemoContext): Promise<void> {
  const colours = paint(process.stdout.isTTY && !process.env.NO_COLOR);
  const sampleAgents = await demoAgentsApi(context, colours);
  try {
    context.say();
    await demoGoal(context, colours, {
      deadlineMs: Number(process.env.IOA_DEMO_DEADLINE_SECONDS || 120) * 1000,
      offlineModel: !process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY,
    });
    context.say();
    await demoA2aAgent(context, colours, Number(process.env.IOA_DEMO_DEADLINE_SECONDS || 120) * 1000);
  } finally {
    await stopAll(sampleAgents);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Issue 2: the agents API

const DEMO_OWNER = 'ioa-demo';

/**
 * Sample agents that join as external agents would, with @ioa/agent-sdk: they register and stay online with
 * heartbeats, and decline any task (they do no work): they are there so that discovery has something to rank and
 * team formation has to choose — none of them fits the sample goal.
 * Also the contract tests' sample of valid cards (deploy/contract/contract-artefacts.spec.ts) and the token benchmark's
 * distractors (test/bench/model-tokens.bench.ts).
 */
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

/** The one search the demo shows, and the agent that should rank first for it. */
const SAMPLE_QUERY = { q: 'translate a contract into French', expected: 'contract-translator' };

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

/** Stops sample agents: they stop heartbeating and go offline when their TTL passes, as any agent that leaves. */
/** The sample agents leave for good: a demo run again on the same data registers them anew, under new identities. */
async function stopAll(agents: IoaAgent[]): Promise<void> {
  await Promise.allSettled(agents.map((agent) => agent.stop({ deregister: true })));
}

/**
 * Sample agents join over NATS; once discovery has indexed everyone, the gateway lists and searches them. Returns
 * the running agents, which the caller stops when the demo ends.
 */
async function demoAgentsApi(context: DemoContext, p: Paint): Promise<IoaAgent[]> {
  const agents: IoaAgent[] = [];
  try {
    await showAgentsApi(context, p, agents);
    return agents;
  } catch (error) {
    await stopAll(agents);
    throw error;
  }
}

async function showAgentsApi(
  { gatewayUrl, apiKey, natsUrl, brokerAuthenticates, say }: DemoContext,
  p: Paint,
  agents: IoaAgent[],
): Promise<void> {
  say(p.bold('The agents API'));
  for (const card of SAMPLE_AGENTS) {
    // Its own key pair, and a JWT for it issued to the admin's account; the card belongs to that account.
    const identity = brokerAuthenticates ? await requestAgentIdentity({ gatewayUrl, apiKey }) : undefined;
    const agent = await IoaAgent.start({
      servers: natsUrl.split(','),
      identity,
      card: identity ? { ...card, owner: identity.accountId ?? card.owner } : card,
      onTask: () => Promise.reject(new TaskRejectedError(`${card.name} is a sample: it only shows discovery`)),
    });
    agents.push(agent);
  }
  const how = brokerAuthenticates
    ? `each with its own NATS identity (POST /v1/agents/identities), registering on ${RegisterOwnAgentV1.subject.replace('*', '<its id>')}`
    : `on a broker without authentication (${RegisterAgentV1.subject})`;
  say(`${SAMPLE_AGENTS.length} sample agents joined over NATS with @ioa/agent-sdk, ${how}`);
  // The built-in agents registered themselves when agent-host started; discovery indexes every card
  // asynchronously, and a search only finds what is indexed.
  const everyone = [...BUILT_IN_AGENTS, ...SAMPLE_AGENTS.map((card) => card.name)];
  await waitUntilSearchable(gatewayUrl, apiKey, everyone, 60_000);

  say(`GET /v1/agents`);
  const listing = await getJson<AgentListBody>(apiKey, `${gatewayUrl}/v1/agents`);
  for (const agent of listing.items) {
    say(`  ${agent.name.padEnd(20)} ${agent.status.padEnd(8)} ${agent.skills.map((skill) => skill.name).join(', ')}`);
  }

  const search = `/v1/agents?q=${encodeURIComponent(SAMPLE_QUERY.q)}&topK=3`;
  say(`GET ${search}`);
  const found = await getJson<AgentListBody>(apiKey, `${gatewayUrl}${search}`);
  for (const agent of found.items) say(`  ${(agent.score ?? 0).toFixed(3)}  ${agent.name}`);
  if (found.items[0]?.name !== SAMPLE_QUERY.expected) {
    throw new Error(
      `expected ${SAMPLE_QUERY.expected} to rank first for "${SAMPLE_QUERY.q}", got ${found.items[0]?.name ?? 'nothing'}`,
    );
  }
}

/** Polls a search wide enough (any score) to return every indexed agent until all `names` are among the results. */
async function waitUntilSearchable(
  gatewayUrl: string,
  apiKey: string,
  names: string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let missing = names;
  while (missing.length > 0) {
    if (Date.now() > deadline) {
      throw new Error(`discovery had not indexed ${missing.join(', ')} after ${timeoutMs / 1000} s`);
    }
    // Cards are embedded with their names, so a query of names scores every one of them (none is left out).
    const query = encodeURIComponent(names.join(' '));
    const found = await getJson<AgentListBody>(apiKey, `${gatewayUrl}/v1/agents?q=${query}&topK=100&minScore=-1`);
    missing = names.filter((name) => !found.items.some((agent) => agent.name === name));
    if (missing.length > 0) await new Promise((wake) => setTimeout(wake, 200));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Issue 3: a goal, end to end

interface GoalDemoOptions {
  deadlineMs: number;
  offlineModel: boolean;
}

/**
 * Submits DEMO_GOAL over REST and follows its event stream to the end. The team is not named: it forms by itself
 * (capability queries → discovery → the model picks), among the sample agents too. Once, early on, the stream is
 * dropped on purpose and resumed with `Last-Event-ID`, as a client that lost its connection would.
 */
async function demoGoal({ gatewayUrl, apiKey, say }: DemoContext, p: Paint, options: GoalDemoOptions): Promise<void> {
  say(p.bold('A goal, end to end'));
  const deadline = AbortSignal.timeout(options.deadlineMs);
  say(`POST /v1/goals  {"goal": "${DEMO_GOAL}"}`);
  say(p.dim('  (no "members": the team forms by itself from what discovery finds among every agent online)'));
  const submittedAt = Date.now();
  const submitted = await sendJson<{ id: string; status: string }>('POST', `${gatewayUrl}/v1/goals`, {
    apiKey,
    body: { goal: DEMO_GOAL },
    // Makes the POST safe to retry: the same key never creates a second goal.
    headers: { [HEADER_IDEMPOTENCY_KEY]: randomUUID() },
  });
  say(`  202 Accepted  id ${submitted.id}, status ${submitted.status}`);
  const eventsPath = `/v1/goals/${submitted.id}/events`;
  say(`GET ${eventsPath}  (Server-Sent Events, followed live)`);

  // On a terminal, lines fit its width; in a file or a pipe, excerpts of 100 characters.
  const excerpt = process.stdout.isTTY ? Math.max(40, process.stdout.columns - 50) : 100;
  const view = new GoalEventView({ paint: p, startedAt: submittedAt, excerpt });
  let lastSeq = 0;
  let droppedOnPurpose = false;
  const show = (event: GoalEventV1) => {
    // The gateway sends each event once, in order; a gap would mean a lost event.
    if (event.seq !== lastSeq + 1) throw new Error(`the event stream jumped from #${lastSeq} to #${event.seq}`);
    lastSeq = event.seq;
    for (const line of view.render(event)) say(`  ${line}`);
  };
  try {
    // One connection until the tasks are handed out, then (after a deliberate drop) one that resumes from there.
    for (const phase of ['first', 'resumed'] as const) {
      const stream = followEventStream(`${gatewayUrl}${eventsPath}`, {
        headers: { authorization: `Bearer ${apiKey}` },
        lastEventId: lastSeq > 0 ? String(lastSeq) : undefined,
        signal: deadline,
        onReconnect: ({ lastEventId, reason }) =>
          say(p.dim(`  (connection lost: ${reason}; resuming with Last-Event-ID: ${lastEventId ?? 'none'})`)),
      });
      for await (const sse of stream) {
        const event = JSON.parse(sse.data) as GoalEventV1;
        show(event);
        if (phase === 'first' && event.type === 'message' && event.data.type === 'async_task_assign') {
          droppedOnPurpose = true;
          say(p.dim(`  (closing the stream on purpose; reconnecting with Last-Event-ID: ${event.seq})`));
          break;
        }
      }
      if (!droppedOnPurpose) break; // the goal ended before handing out tasks: nothing left to resume
    }
  } catch (error) {
    if (deadline.aborted) {
      const goal = await getJson<GoalV1>(apiKey, `${gatewayUrl}/v1/goals/${submitted.id}`).catch(() => undefined);
      throw new Error(
        `the goal did not finish within ${options.deadlineMs / 1000} s ` +
          `(status ${goal?.status ?? 'unknown'}, ${lastSeq} events received; IOA_DEMO_DEADLINE_SECONDS sets the limit)`,
        { cause: error },
      );
    }
    if (error instanceof EventStreamError) {
      throw new Error(`the event stream failed: ${error.message}`, { cause: error });
    }
    throw error;
  }

  say(`GET /v1/goals/${submitted.id}`);
  const goal = await getJson<GoalV1>(apiKey, `${gatewayUrl}/v1/goals/${submitted.id}`);
  say();
  for (const line of summarizeGoal(goal, { paint: p, excerpt, offlineModel: options.offlineModel })) say(line);
  checkOutcome(goal);
}

/** The main job's promise: completed, by at least two different agents, with at least one asynchronous task. */
function checkOutcome(goal: GoalV1): void {
  if (goal.status !== 'completed') {
    throw new Error(`the goal ended ${goal.status}${goal.statusReason ? `: ${goal.statusReason}` : ''}`);
  }
  const workers = new Set(goal.tasks.filter((task) => task.state === 'completed').map((task) => task.assigneeName));
  const asynchronous = goal.tasks.filter((task) => task.mode === 'async' && task.state === 'completed');
  if (workers.size < 2 || asynchronous.length === 0) {
    throw new Error(
      `the goal completed, but not as the demo intends: completed tasks by ${[...workers].join(', ') || 'nobody'}, ` +
        `${asynchronous.length} of them asynchronous (expected at least two agents and one asynchronous task)`,
    );
  }
  if (!goal.conclusion?.trim()) throw new Error('the goal completed without a conclusion');
}

// ---------------------------------------------------------------------------------------------------------------
// Issue 8: an agent that was not written for IoA

/** A goal only the A2A agent can do its part of, beside the built-in writer. */
export const A2A_DEMO_GOAL =
  'Tell whether it will rain in Lyon tomorrow from the weather forecast, and write a short report.';

/**
 * A third-party A2A agent (built with @a2a-js/sdk, started here on a local port) joins by URL alone through
 * `POST /v1/agents`; the adapters service reads its agent card, speaks for it on NATS, and the next goal's team
 * formation finds it like any other agent. Its task goes out over A2A and its artifact comes back as the result.
 */
async function demoA2aAgent({ gatewayUrl, apiKey, say }: DemoContext, p: Paint, deadlineMs: number): Promise<void> {
  say(p.bold('A third-party A2A agent joins and works in a goal'));
  const agent = await startA2aWeatherAgent();
  try {
    say(`An A2A v1.0 agent (@a2a-js/sdk) listens on ${agent.url}`);
    say(`POST /v1/agents  {"owner": "${DEMO_OWNER}", "endpoint": {"kind": "a2a", "url": "${agent.url}"}}`);
    const registered = await sendJson<{ agent: { id: string; name: string; skills: Array<{ name: string }> } }>(
      'POST',
      `${gatewayUrl}/v1/agents`,
      { apiKey, body: { owner: DEMO_OWNER, endpoint: { kind: 'a2a', url: agent.url } } },
    );
    const skills = registered.agent.skills.map((skill) => skill.name).join(', ');
    say(`  201 Created  ${registered.agent.name} (${registered.agent.id}), skills from its agent card: ${skills}`);
    await waitUntilSearchable(gatewayUrl, apiKey, [registered.agent.name], 30_000);
    say(`POST /v1/goals  {"goal": "${A2A_DEMO_GOAL}"}`);
    const submitted = await sendJson<{ id: string }>('POST', `${gatewayUrl}/v1/goals`, {
      apiKey,
      body: { goal: A2A_DEMO_GOAL },
      headers: { [HEADER_IDEMPOTENCY_KEY]: randomUUID() },
    });
    const deadline = Date.now() + deadlineMs;
    let goal = await getJson<GoalV1>(apiKey, `${gatewayUrl}/v1/goals/${submitted.id}`);
    while (!['completed', 'failed', 'canceled'].includes(goal.status)) {
      if (Date.now() > deadline) throw new Error(`the A2A goal did not finish within ${deadlineMs / 1000} s`);
      await new Promise((wake) => setTimeout(wake, 250));
      goal = await getJson<GoalV1>(apiKey, `${gatewayUrl}/v1/goals/${submitted.id}`);
    }
    for (const task of goal.tasks) {
      say(
        `  ${task.assigneeName.padEnd(16)} ${task.mode.padEnd(5)} ${task.state.padEnd(9)} ${oneLine(task.result ?? task.statusMessage ?? '', 90)}`,
      );
    }
    const a2aTask = goal.tasks.find((task) => task.assigneeName === registered.agent.name);
    if (goal.status !== 'completed' || a2aTask?.state !== 'completed') {
      throw new Error(
        `the A2A agent's goal ended ${goal.status}${goal.statusReason ? ` (${goal.statusReason})` : ''}; ` +
          `its task: ${a2aTask ? `${a2aTask.state} ${a2aTask.statusMessage ?? ''}` : 'none (not chosen)'}`,
      );
    }
    say(`  The goal completed; ${registered.agent.name} answered over A2A (${agent.methods.join(', ')}).`);
  } finally {
    await agent.stop();
  }
}
