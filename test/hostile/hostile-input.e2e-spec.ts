import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { errors as natsErrors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import {
  ALL_CONTRACTS,
  AssignTaskV1,
  CancelGoalV1,
  CreateGroupV1,
  DeregisterAgentV1,
  ERROR_CODES,
  HEADER_IDEMPOTENCY_KEY,
  ListAgentsV1,
  PAYLOAD_BOUNDS,
  RegisterAgentV1,
  SubmitGoalV1,
  subjectFor,
  type AgentCardV1,
  type AnyContract,
  type ContractOwner,
  type EventContract,
  type RequestContract,
} from '@ioa/contracts';
import {
  adminAuthHeaders,
  connectRaw,
  expectEventually,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app.js';
import { payloadSchemas } from '../../deploy/contract/contract-artefacts.js';
import {
  hostileBody,
  hostileHeaders,
  hostileParameter,
  payloadFor,
  RawJson,
  shapedValue,
  toJsonText,
  type JsonSchema,
} from './hostile-payloads.js';
import { GOAL_SERVICES, startServices } from '../support/platform-services.js';

/** Fixed, so every run sends the same cases and a failure replays exactly. */
const SEED = 20_261_123;
const RUNS_PER_SUBJECT = 32;
const RUNS_PER_EVENT = 8;
const RUNS_PER_OPERATION = 24;
/** A structured reply (or an HTTP status) must come within this; a silent service is a failure. */
const REPLY_TIMEOUT_MS = 5_000;
const GOAL_DEADLINE_MS = 90_000;
/** Error replies stay small whatever the request held. */
const MAX_ERROR_REPLY_BYTES = 8_192;

/** The services booted here, by the owner token of their subjects. */
const SERVED_OWNERS: ReadonlySet<ContractOwner> = new Set<ContractOwner>([
  'registry',
  'discovery',
  'chat',
  'scheduler',
  'agent',
  'agent-host',
  'adapters',
]);

interface Failure {
  target: string;
  problem: string;
  body: string;
}

type Envelope = { ok: boolean; data?: unknown; error?: { code: string; message: string } };

const decoder = new TextDecoder();

function preview(text: string): string {
  return text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text;
}

/**
 * Peers the platform does not control send every subject of the catalog and every REST operation of the OpenAPI
 * document generated, hostile payloads (fast-check, fixed seed) — on the real services, booted in-process on a real
 * nats-server and database. Each must answer with a structured reply in time: never INTERNAL on NATS, never a 5xx
 * on HTTP, never a process exit; and a goal still completes afterwards.
 */
describe('hostile input: nothing a peer sends stops the network', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let peer: NatsConnection;
  let hostedAgentIds: string[] = [];
  const definitions: Record<string, JsonSchema> = {};
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);
  const createdGoals = new Set<string>();
  const createdAgents = new Map<string, string>();
  const counts = { natsRequests: 0, notServed: 0, events: 0, restRequests: 0, structuredErrors: 0 };

  async function request(
    subject: string,
    text: string,
    headerValues: Record<string, string> = {},
  ): Promise<{ envelope?: Envelope; bytes: number; problem?: string }> {
    counts.natsRequests++;
    const headers = natsHeaders();
    for (const [name, value] of Object.entries(headerValues)) headers.set(name, value);
    try {
      const reply = await peer.request(subject, text, { timeout: REPLY_TIMEOUT_MS, headers });
      const replyText = decoder.decode(reply.data);
      try {
        return { envelope: JSON.parse(replyText) as Envelope, bytes: reply.data.length };
      } catch {
        return { bytes: reply.data.length, problem: `reply is not JSON: ${preview(replyText)}` };
      }
    } catch (error) {
      if (error instanceof natsErrors.RequestError && error.isNoResponders())
        return { bytes: 0, problem: 'not served' };
      if (error instanceof natsErrors.NoRespondersError) return { bytes: 0, problem: 'not served' };
      return { bytes: 0, problem: `no reply: ${(error as Error).message}` };
    }
  }

  /** What is wrong with a reply, or undefined when it is a proper structured reply. */
  function judge(result: Awaited<ReturnType<typeof request>>): string | undefined {
    if (result.problem) return result.problem;
    const envelope = result.envelope;
    if (!envelope || typeof envelope.ok !== 'boolean') return 'not a contract envelope';
    if (envelope.ok) return undefined;
    counts.structuredErrors++;
    const code = envelope.error?.code;
    if (!code || !(ERROR_CODES as readonly string[]).includes(code)) return `unknown error code ${String(code)}`;
    if (code === 'INTERNAL') return `INTERNAL: ${envelope.error?.message}`;
    if (code === 'TIMEOUT' || code === 'UNAVAILABLE') return `${code}: ${envelope.error?.message}`;
    if (result.bytes > MAX_ERROR_REPLY_BYTES) return `error reply of ${result.bytes} bytes`;
    return undefined;
  }

  function concreteSubjects(contract: AnyContract): string[] {
    if (!contract.subject.includes('*')) return [contract.subject];
    return contract.owner === 'agent' ? hostedAgentIds.map((id) => subjectFor(contract, id)) : [];
  }

  /** Remembers what valid-shaped requests created, so it can be undone and does not load the goal run at the end. */
  function remember(contract: AnyContract, payload: unknown, envelope: Envelope | undefined): void {
    if (!envelope?.ok) return;
    if (contract.subject === SubmitGoalV1.subject) createdGoals.add((envelope.data as { id: string }).id);
    if (contract.subject === RegisterAgentV1.subject) {
      const agent = (envelope.data as { agent: AgentCardV1 }).agent;
      createdAgents.set(agent.id, (payload as { owner: string }).owner);
    }
  }

  async function http(method: string, path: string, body?: string, contentType = 'application/json') {
    counts.restRequests++;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REPLY_TIMEOUT_MS);
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: body === undefined ? adminAuthHeaders() : { 'content-type': contentType, ...adminAuthHeaders() },
        body,
        signal: controller.signal,
      });
      // A stream (goal events) proves itself with its status; its body never ends.
      if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        await response.body?.cancel();
        return { status: response.status, text: '' };
      }
      return { status: response.status, text: await response.text() };
    } catch (error) {
      return { status: 0, text: `no response: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  beforeAll(async () => {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ AGENT_HOST_HEARTBEAT_MS: '1000', ADAPTERS_CALLBACK_PORT: '0' });
    services.push(...(await startServices([...GOAL_SERVICES, [AdaptersModule, 'adapters']], ['fatal'])));
    gateway = await createGatewayApp({ logger: ['fatal'] });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    peer = await connectRaw(infrastructure.natsUrl);
    for (const [name, schema] of payloadSchemas(ALL_CONTRACTS, '#/$defs/')) definitions[name] = schema;
    hostedAgentIds = await expectEventually(
      async () => {
        const reply = await request(ListAgentsV1.subject, JSON.stringify({ limit: 50 }));
        const items = ((reply.envelope?.data as { items?: AgentCardV1[] })?.items ?? []).filter((agent) =>
          ['code-runner', 'doc-researcher', 'writer'].includes(agent.name),
        );
        if (items.length < 3) throw new Error(`${items.length} of 3 built-in agents registered`);
        return items.map((agent) => agent.id);
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'agent-host registers its agents' },
    );
    // Registered is not yet served: agent-host subscribes to an agent's task subject once its registration returns.
    await expectEventually(
      async () => {
        for (const agentId of hostedAgentIds) {
          const result = await request(subjectFor(AssignTaskV1, agentId), '{}');
          if (!result.envelope) throw new Error(`${agentId}: ${result.problem}`);
        }
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: "agent-host serves its agents' task subjects" },
    );
  }, 120_000);

  afterAll(async () => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.stdout.write(
      `hostile-input: ${counts.natsRequests} NATS requests (${counts.notServed} to subjects not served here, ` +
        `${counts.structuredErrors} structured errors), ${counts.events} events, ${counts.restRequests} REST requests\n`,
    );
    await peer?.close();
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it('answers every request subject of the catalog with a structured reply in time, never INTERNAL', async () => {
    const failures: Failure[] = [];
    const answeredSubjects = new Set<string>();
    const requests = ALL_CONTRACTS.filter(
      (contract): contract is RequestContract<unknown, unknown> =>
        contract.kind === 'request' && SERVED_OWNERS.has(contract.owner),
    );
    for (const contract of requests) {
      const schema = definitions[contract.request.name] ?? { type: 'object', properties: {} };
      // Headers ride along on a quarter of the requests: Idempotency-Key and traceparent reach handlers too.
      const cases = fc.sample(
        fc.tuple(
          payloadFor(schema, definitions),
          fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, hostileHeaders()),
        ),
        { seed: SEED, numRuns: RUNS_PER_SUBJECT },
      );
      for (const subject of concreteSubjects(contract)) {
        let silences = 0;
        for (const [body, headerValues] of cases) {
          const text = toJsonText(body);
          const result = await request(subject, text, headerValues);
          if (result.problem === 'not served') {
            counts.notServed++;
            break; // a subject of a service not booted here (or not built yet)
          }
          answeredSubjects.add(subject);
          remember(contract, body, result.envelope);
          const problem = judge(result);
          if (problem) {
            failures.push({ target: subject, problem, body: preview(`${JSON.stringify(headerValues)} ${text}`) });
          }
          // A subject that keeps timing out has failed already; waiting on it again only slows the suite down.
          if (problem?.startsWith('no reply') && ++silences >= 3) break;
        }
      }
    }
    // The walk must reach the catalog: every platform service's subjects and each built-in agent's task subject.
    expect(answeredSubjects.size).toBeGreaterThanOrEqual(25);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 240_000);

  it('survives hostile bodies published on every event subject', async () => {
    const events = ALL_CONTRACTS.filter(
      (contract): contract is EventContract<unknown> => contract.kind === 'event' && SERVED_OWNERS.has(contract.owner),
    );
    for (const contract of events) {
      // Shape-breaking bodies only: a well-formed but false fact is a question of trust (who may publish what),
      // not of input hygiene.
      const bodies = fc.sample(hostileBody(), { seed: SEED, numRuns: RUNS_PER_EVENT });
      for (const subject of concreteSubjects(contract)) {
        for (const body of bodies) {
          counts.events++;
          peer.publish(subject, toJsonText(body));
        }
      }
    }
    await peer.flush();
    const failures = await unhealthyServices();
    expect(failures).toEqual([]);
  }, 60_000);

  async function unhealthyServices(): Promise<string[]> {
    const failures: string[] = [];
    for (const contract of ALL_CONTRACTS) {
      if (contract.kind !== 'request' || !contract.subject.endsWith('.health.v1')) continue;
      if (!SERVED_OWNERS.has(contract.owner)) continue;
      const result = await request(contract.subject, '{}');
      if (result.problem === 'not served') continue;
      if (!result.envelope?.ok) failures.push(`${contract.subject}: ${result.problem ?? result.envelope?.error?.code}`);
    }
    return failures;
  }

  it('answers every REST operation of the OpenAPI document with a status below 500, in time', async () => {
    const document = JSON.parse((await http('GET', '/docs-json')).text) as {
      paths: Record<string, Record<string, JsonSchema>>;
      components?: { schemas?: Record<string, JsonSchema> };
    };
    const components = document.components?.schemas ?? {};
    const failures: Failure[] = [];
    let operations = 0;
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const operation = item[method];
        if (!operation) continue;
        operations++;
        const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string }>;
        const bodySchema =
          (operation.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content?.[
            'application/json'
          ]?.schema ?? undefined;
        const reference = typeof bodySchema?.$ref === 'string' ? bodySchema.$ref : undefined;
        const resolvedBody = reference ? components[reference.slice(reference.lastIndexOf('/') + 1)] : bodySchema;
        const cases = fc.sample(
          fc.record({
            path: fc.array(hostileParameter(), { minLength: 4, maxLength: 4 }),
            query: fc.dictionary(
              fc.constantFrom(...parameters.filter((parameter) => parameter.in === 'query').map((p) => p.name), 'x'),
              hostileParameter(),
              { maxKeys: 3 },
            ),
            body: resolvedBody
              ? fc.oneof(
                  { weight: 4, arbitrary: shapedValue(resolvedBody, components) },
                  { weight: 1, arbitrary: hostileBody() },
                )
              : fc.constant(undefined),
          }),
          { seed: SEED, numRuns: RUNS_PER_OPERATION },
        );
        for (const sample of cases) {
          let index = 0;
          const path = template.replace(/\{[^}]+\}/g, () => encodeSegment(sample.path[index++] ?? 'x'));
          const query = new URLSearchParams();
          for (const [key, value] of Object.entries(sample.query)) query.set(key, stripLoneSurrogates(value));
          const url = `${path}${query.size > 0 ? `?${query.toString()}` : ''}`;
          const body = sample.body === undefined ? undefined : toJsonText(sample.body);
          const response = await http(method.toUpperCase(), url, body);
          if (method === 'post' && template === '/v1/goals' && response.status === 202) {
            createdGoals.add((JSON.parse(response.text) as { id: string }).id);
          }
          if (response.status === 0 || response.status >= 500) {
            failures.push({
              target: `${method.toUpperCase()} ${template}`,
              problem: `${response.status}: ${preview(response.text)}`,
              body: preview(`${url} ${body ?? ''}`),
            });
          }
        }
      }
    }
    expect(operations).toBeGreaterThan(5);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 240_000);

  describe('regressions: the inputs that used to stop or corrupt the stack', () => {
    const twentyKilobyteBrief = JSON.stringify({ brief: new Array(10_000).fill(1) });

    it('answers the ~20 KB {"brief": [1 × 10,000]} on an agent task subject, and agent-host keeps running', async () => {
      const result = await request(subjectFor(AssignTaskV1, hostedAgentIds[0]), twentyKilobyteBrief);
      expect(result.envelope).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      expect(result.bytes).toBeLessThan(2_000);
      expect(await unhealthyServices()).toEqual([]);
    });

    it.each([RegisterAgentV1.subject, CreateGroupV1.subject, SubmitGoalV1.subject])(
      'answers the same body on %s with a structured reply, not a timeout',
      async (subject) => {
        const result = await request(subject, twentyKilobyteBrief);
        expect(result.envelope).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
        expect(result.bytes).toBeLessThan(2_000);
      },
    );

    it.each([
      ['300 characters', 'k'.repeat(300)],
      ['spaces and non-ASCII', 'clé avec espaces'],
    ])('answers an Idempotency-Key of %s on goal.submit with VALIDATION_FAILED, not INTERNAL', async (_name, key) => {
      const headers = natsHeaders();
      headers.set(HEADER_IDEMPOTENCY_KEY, key);
      const reply = await peer.request(SubmitGoalV1.subject, JSON.stringify({ goal: 'Count to three' }), {
        timeout: REPLY_TIMEOUT_MS,
        headers,
      });
      expect(reply.json()).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    });

    it('keeps the error reply to a 6 KB request small', async () => {
      const body = JSON.stringify({ name: 'x', skills: new Array(900).fill({ id: 1 }), owner: 'o' });
      expect(body.length).toBeGreaterThan(6_000);
      const result = await request(RegisterAgentV1.subject, body);
      expect(result.envelope).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      expect(result.bytes).toBeLessThan(4_000);
    });

    const card = {
      name: 'hostile-probe',
      description: 'Probes the registry',
      owner: 'hostile-suite',
      skills: [{ id: 'probe', name: 'Probe', description: 'Probes' }],
      endpoint: { kind: 'nats' },
    };
    it.each([
      ['a NUL in the description', RegisterAgentV1.subject, { ...card, description: 'a\u0000b' }],
      ['an unpaired surrogate in the description', RegisterAgentV1.subject, { ...card, description: 'a\uD800b' }],
      ['a card without an endpoint', RegisterAgentV1.subject, { ...card, endpoint: undefined }],
      [
        'a "constructor" key (class-transformer took it for the class to build)',
        RegisterAgentV1.subject,
        new RawJson(`{"name": "x", "version": {"constructor": {"prototype": {"polluted": true}}}}`),
      ],
      ['null for an optional number', ListAgentsV1.subject, { limit: null }],
      ['1e308 for an offset', ListAgentsV1.subject, { offset: 1e308 }],
      ['a 20-digit offset', ListAgentsV1.subject, new RawJson('{"offset": 12345678901234567890}')],
      ['maxDepth: true', SubmitGoalV1.subject, { goal: 'Count to three', maxDepth: true }],
      ['a goal of only spaces', SubmitGoalV1.subject, { goal: '    ' }],
      ['null for an optional budget', SubmitGoalV1.subject, { goal: 'Count', budget: { tokens: null } }],
      ['nesting 5,000 deep', SubmitGoalV1.subject, new RawJson(`{"goal": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`)],
      ['nesting 10,000 deep', RegisterAgentV1.subject, new RawJson(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)],
    ])('answers %s with VALIDATION_FAILED over NATS', async (_name, subject, body) => {
      const result = await request(subject, toJsonText(body));
      expect(result.envelope).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      expect(result.bytes).toBeLessThan(4_000);
    });

    it.each([
      ['a goal of only spaces', '/v1/goals', { goal: '   ' }, 400],
      ['maxDepth: true', '/v1/goals', { goal: 'Count to three', maxDepth: true }, 400],
      ['a NUL in the goal', '/v1/goals', { goal: 'a\u0000b' }, 400],
      ['an unpaired surrogate in the goal', '/v1/goals', { goal: 'a\uD800b' }, 400],
      ['1e308 tokens', '/v1/goals', { goal: 'Count', budget: { tokens: 1e308 } }, 400],
      ['null tokens', '/v1/goals', { goal: 'Count', budget: { tokens: null } }, 400],
      ['nesting 10,000 deep', '/v1/goals', new RawJson(`{"goal": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`), 400],
      ['malformed JSON', '/v1/goals', new RawJson('{"goal": nope'), 400],
      ['a body over the size bound', '/v1/goals', { goal: 'x'.repeat(PAYLOAD_BOUNDS.maxBytes + 1) }, 413],
    ])('answers %s on POST %s over REST', async (_name, path, body, status) => {
      const response = await http('POST', path, toJsonText(body));
      expect(response.status).toBe(status);
      expect(JSON.parse(response.text)).toMatchObject({ statusCode: status, message: expect.any(String) });
      expect(response.text.length).toBeLessThan(4_000);
    });

    it.each([
      ['a 20-digit offset', '/v1/agents?offset=12345678901234567890'],
      ['a non-numeric limit', '/v1/agents?limit=abc'],
      ['a NUL in the search', '/v1/agents?q=a%00b'],
    ])('answers GET with %s with a 400', async (_name, path) => {
      const response = await http('GET', path);
      expect(response.status).toBe(400);
    });
  });

  it(
    'keeps every service up and still completes a goal afterwards',
    async () => {
      expect(crashes).toEqual([]);
      // Undo what valid-shaped hostile requests created, so the goal below is not competing with them.
      for (const goalId of createdGoals) await request(CancelGoalV1.subject, JSON.stringify({ goalId }));
      for (const [id, owner] of createdAgents) await request(DeregisterAgentV1.subject, JSON.stringify({ id, owner }));
      expect(await unhealthyServices()).toEqual([]);

      const submitted = await http(
        'POST',
        '/v1/goals',
        JSON.stringify({
          goal: 'Run `console.log(6 * 7)` and write a one-line report.',
          members: ['code-runner', 'writer'],
        }),
      );
      expect(submitted.status).toBe(202);
      const goalId = (JSON.parse(submitted.text) as { id: string }).id;
      const goal = await expectEventually(
        async () => {
          const { text } = await http('GET', `/v1/goals/${goalId}`);
          const current = JSON.parse(text) as { status: string; conclusion?: string };
          if (!['completed', 'failed', 'canceled'].includes(current.status)) throw new Error(`still ${current.status}`);
          return current;
        },
        { timeoutMs: GOAL_DEADLINE_MS, intervalMs: 500, message: 'the goal ends' },
      );
      expect(goal.status).toBe('completed');
      expect(crashes).toEqual([]);
    },
    GOAL_DEADLINE_MS + 30_000,
  );
});

/** A path segment: percent-encoded, and a lone surrogate becomes the invalid UTF-8 a hostile client would send. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

function stripLoneSurrogates(value: string): string {
  return value.replace(/[\uD800-\uDFFF]/g, '\uFFFD');
}
