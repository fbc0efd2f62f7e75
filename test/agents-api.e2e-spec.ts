import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { AgentIndexedV1, HeartbeatAgentV1, RegisterAgentV1 } from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
  adminAuthHeaders,
} from '@ioa/testing';
import { DiscoveryModule } from '../apps/discovery/src/discovery.module.js';
import { createGatewayApp } from '../apps/gateway/src/gateway.app.js';
import { RegistryModule } from '../apps/registry/src/registry.module.js';

/** Agents silent this long turn offline; the live ones below heartbeat well within it, as real agents do. */
const HEARTBEAT_TTL_SECONDS = 2;
const HEARTBEAT_EVERY_MS = 300;

interface AgentListBody {
  items: Array<{ id: string; name: string; status: string; score?: number; matchedQuery?: string }>;
  total: number;
  limit?: number;
  offset?: number;
  model?: string;
}

/** A registration exactly as an external agent sends it: plain JSON, nothing of ours. */
function card(
  name: string,
  description: string,
  skill: { name: string; description: string; tags: string[]; examples: string[] },
) {
  return {
    name,
    description,
    skills: [{ id: name.split('-')[0], ...skill }],
    owner: 'team-system-test',
    endpoint: { kind: 'nats' },
    version: '1.0.0',
  };
}

const TRANSLATOR = card(
  'legal-translator',
  'Translates legal contracts and court documents between English and French, keeping clause numbering intact.',
  {
    name: 'Translate legal documents',
    description: 'Translate a legal contract from English into French or from French into English.',
    tags: ['legal', 'translation', 'french'],
    examples: ['Translate this contract into French', 'Traduire ce contrat en anglais'],
  },
);
const CODE_RUNNER = card(
  'javascript-runner',
  'Executes JavaScript code in a sandbox and returns the output, the errors and the run time.',
  {
    name: 'Run JavaScript',
    description: 'Run a JavaScript program and report what it printed.',
    tags: ['code', 'javascript'],
    examples: ['Run this JavaScript function and show me the result'],
  },
);
const FORECASTER = card(
  'weather-forecaster',
  'Forecasts the weather: temperature, rain and wind for any city over the next seven days.',
  {
    name: 'Forecast the weather',
    description: 'Give the weather forecast for a city.',
    tags: ['weather', 'forecast'],
    examples: ['Will it rain in Paris tomorrow?'],
  },
);
/** Never heartbeats: it turns offline after the TTL. */
const POET = card('sonnet-poet', 'Writes poems and sonnets about the sea, love and the seasons, in rhyming verse.', {
  name: 'Write poems',
  description: 'Write a rhyming poem or sonnet on a given theme.',
  tags: ['poetry', 'writing'],
  examples: ['Write a sonnet about the sea'],
});

/**
 * The agents API end to end: registry, discovery and the gateway booted as they run in production (each its own
 * Nest application on one NATS and one database), agents registering themselves over raw NATS, and a client on HTTP.
 */
describe('the agents API over HTTP, with the registry and discovery behind the gateway', () => {
  let infrastructure: TestInfrastructure;
  let registry: INestMicroservice;
  let discovery: INestMicroservice;
  let gateway: INestApplication;
  let baseUrl: string;
  let external: NatsConnection;
  let indexedWatch: Subscription;
  let heartbeats: NodeJS.Timeout;
  const indexed = new Set<string>();
  const ids: Record<string, string> = {};

  async function get<T = Record<string, unknown>>(path: string): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, { headers: adminAuthHeaders() });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function names(path: string): Promise<string[]> {
    const { status, body } = await get<AgentListBody>(path);
    expect(status).toBe(200);
    return body.items.map((item) => item.name);
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      REGISTRY_HEARTBEAT_TTL_SECONDS: String(HEARTBEAT_TTL_SECONDS),
      REGISTRY_PRESENCE_SWEEP_MS: '100',
    });
    registry = await createService(RegistryModule, { name: 'registry', logger: false });
    discovery = await createService(DiscoveryModule, { name: 'discovery', logger: false });
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');

    external = await connectRaw(infrastructure.natsUrl);
    indexedWatch = external.subscribe(AgentIndexedV1.subject, {
      callback: (_error, message) => {
        const event = message.json<{ agentId: string; indexed: boolean }>();
        if (event.indexed) indexed.add(event.agentId);
      },
    });
    await external.flush();
    for (const registration of [TRANSLATOR, CODE_RUNNER, FORECASTER, POET]) {
      const reply = await rawRequest(external, RegisterAgentV1.subject, registration);
      expect(reply.error).toBeUndefined();
      expect(reply).toMatchObject({ ok: true, data: { created: true } });
      ids[registration.name] = (reply.data as { agent: { id: string } }).agent.id;
    }
    heartbeats = setInterval(() => {
      for (const live of [TRANSLATOR, CODE_RUNNER, FORECASTER]) {
        external.request(HeartbeatAgentV1.subject, JSON.stringify({ id: ids[live.name] })).catch(() => undefined);
      }
    }, HEARTBEAT_EVERY_MS);
    await expectEventually(() => Object.values(ids).every((id) => indexed.has(id)), {
      message: 'discovery never indexed every registered agent',
    });
  });

  afterAll(async () => {
    clearInterval(heartbeats);
    indexedWatch?.unsubscribe();
    await external?.close();
    await gateway?.close();
    await discovery?.close();
    await registry?.close();
    await infrastructure?.stop();
  });

  it('lists every registered agent, newest first, with the page it used', async () => {
    const { status, body } = await get<AgentListBody>('/v1/agents');
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 4, limit: 100, offset: 0 });
    expect(body.items.map((item) => item.name)).toEqual([
      POET.name,
      FORECASTER.name,
      CODE_RUNNER.name,
      TRANSLATOR.name,
    ]);
  });

  it('pages with limit and offset', async () => {
    const { body } = await get<AgentListBody>('/v1/agents?limit=2&offset=1');
    expect(body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(body.items.map((item) => item.name)).toEqual([FORECASTER.name, CODE_RUNNER.name]);
  });

  it('filters by presence once a silent agent has turned offline', async () => {
    await expectEventually(async () => (await names('/v1/agents?online=false')).join() === POET.name, {
      message: 'the silent agent never turned offline',
    });
    expect((await names('/v1/agents?online=true')).sort()).toEqual(
      [CODE_RUNNER.name, FORECASTER.name, TRANSLATOR.name].sort(),
    );
  });

  it('ranks the agent whose skills match the query first, with scores', async () => {
    const q = 'translate this legal contract into French';
    const { status, body } = await get<AgentListBody>(`/v1/agents?q=${encodeURIComponent(q)}`);
    expect(status).toBe(200);
    expect(body.items[0]).toMatchObject({ name: TRANSLATOR.name, id: ids[TRANSLATOR.name], matchedQuery: q });
    const scores = body.items.map((item) => item.score ?? Number.NaN);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(body.total).toBe(body.items.length);
    expect(typeof body.model).toBe('string');
  });

  it('searches online agents only unless online=false, and narrows by topK and tags', async () => {
    const poem = `/v1/agents?q=${encodeURIComponent('write a sonnet about the sea')}&minScore=-1`;
    await expectEventually(async () => !(await names(poem)).includes(POET.name), {
      message: 'the offline agent still appears in an online-only search',
    });
    expect((await names(`${poem}&online=false`))[0]).toBe(POET.name);
    expect(await names(`${poem}&topK=1`)).toHaveLength(1);
    expect(await names(`${poem}&tags=javascript,code`)).toEqual([CODE_RUNNER.name]);
  });

  it("returns one agent's card by id", async () => {
    const { status, body } = await get(`/v1/agents/${ids[CODE_RUNNER.name]}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ ...CODE_RUNNER, id: ids[CODE_RUNNER.name], revision: 1 });
  });

  it('answers 404 for an id nobody registered', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const { status, body } = await get(`/v1/agents/${unknown}`);
    expect(status).toBe(404);
    expect(body).toMatchObject({
      statusCode: 404,
      error: 'NOT_FOUND',
      message: expect.stringContaining(unknown),
    });
  });

  it('reports itself healthy (200) with NATS, the registry, discovery and their database up', async () => {
    const { status, body } = await get('/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      nats: 'up',
      database: 'up',
      services: {
        registry: { status: 'up', database: 'up' },
        discovery: { status: 'up', database: 'up' },
        // Not started here: reported, but not needed by the agents API.
        chat: { status: 'down' },
        scheduler: { status: 'down' },
        'agent-host': { status: 'down' },
      },
    });
  });
});
