import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger, type INestMicroservice, type LoggerService } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import {
  AssignTaskV1,
  GetAdaptedAgentV1,
  GetAgentV1,
  RegisterAdaptedAgentV1,
  subjectFor,
  UpdateAdaptedAgentV1,
  type AdaptedAgentV1,
  type ReportTaskV1Request,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startOpenAiFake,
  startTestInfrastructure,
  type OpenAiFake,
  type TestInfrastructure,
} from '@ioa/testing';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { startA2aGatedAgent, type A2aGatedAgent } from '../../apps/adapters/src/testing/a2a-gated-agent.js';
import { startMcpTestServer, type McpTestServer } from '../../apps/adapters/src/testing/mcp-test-server.js';
import { startWebhookTestAgent, type WebhookTestAgent } from '../../apps/adapters/src/testing/webhook-test-agent.js';
import { finalReportOf, newTaskAssignment, recordTaskReports } from '../../apps/adapters/src/testing/scheduler-side.js';

const OWNER = 'team-secrets@example.org';
const A2A_TOKEN = `a2a-token-${randomUUID()}`;
const A2A_TOKEN_ROTATED = `a2a-token-rotated-${randomUUID()}`;
const OPENAI_KEY = `sk-${randomUUID()}`;
const MCP_TOKEN = `mcp-token-${randomUUID()}`;
const WEBHOOK_SECRET = `webhook-secret-${randomUUID()}`;
const SECRETS = [A2A_TOKEN, A2A_TOKEN_ROTATED, OPENAI_KEY, MCP_TOKEN, WEBHOOK_SECRET];
const FIRST_KEY = randomBytes(32).toString('base64');
const SECOND_KEY = randomBytes(32).toString('base64');

/** Every log line of every service in this process, whatever its level. */
class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private record(level: string, args: unknown[]): void {
    this.lines.push(
      `${level} ${args.map((arg) => (arg instanceof Error ? arg.stack : JSON.stringify(arg))).join(' ')}`,
    );
  }
  log = (...args: unknown[]) => this.record('log', args);
  error = (...args: unknown[]) => this.record('error', args);
  warn = (...args: unknown[]) => this.record('warn', args);
  debug = (...args: unknown[]) => this.record('debug', args);
  verbose = (...args: unknown[]) => this.record('verbose', args);
  fatal = (...args: unknown[]) => this.record('fatal', args);
  setLogLevels = () => undefined;
}

/**
 * Credentials toward third-party agents (an A2A bearer token, an OpenAI API key, a webhook signing secret) are
 * stored sealed (AES-256-GCM under ADAPTERS_SECRET_KEY), used on the wire where the agent wants them, and never
 * seen anywhere else: not in a reply, a card, an event or any NATS message but the registration itself, nor in
 * any log line. An agent's secret is rotated by giving its endpoint again; the master key is rotated by starting
 * with the new key and the old one as previous, after which the old key can be dropped.
 */
describe('adapters: secrets toward third-party agents', () => {
  let infrastructure: TestInfrastructure;
  let registry: INestMicroservice;
  let adapters: INestMicroservice | undefined;
  let nats: NatsConnection;
  let a2a: A2aGatedAgent;
  let openAi: OpenAiFake;
  let webhook: WebhookTestAgent;
  let mcp: McpTestServer;
  const logger = new CapturingLogger();
  /** Every NATS message but the registration and update requests, which carry the secrets in by design. */
  const wire: string[] = [];
  let reports: ReportTaskV1Request[] = [];
  const agents: Record<'a2a' | 'openai' | 'mcp' | 'http', AdaptedAgentV1> = {} as never;

  async function startAdapters(environment: Record<string, string>): Promise<void> {
    infrastructure.applyEnvironment({ ADAPTERS_PREVIOUS_SECRET_KEYS: '', ...environment });
    adapters = await createService(AdaptersModule, {
      name: 'adapters',
      logger: ['log', 'warn', 'error', 'fatal', 'debug', 'verbose'],
    });
  }

  async function ok<T>(subject: string, body: unknown): Promise<T> {
    const reply = await rawRequest(nats, subject, body, 15_000).catch((error: unknown) => {
      // The services log into `logger` only, so a request that gets no answer says what they were doing.
      throw new Error(
        `${subject}: ${String(error)}; the services' last log lines:\n${logger.lines.slice(-40).join('\n')}`,
      );
    });
    if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
    return reply.data as T;
  }

  async function runTask(agentId: string, description: string): Promise<ReportTaskV1Request> {
    const assignment = newTaskAssignment(agentId, description);
    expect(await ok(subjectFor(AssignTaskV1, agentId), assignment)).toEqual({ accepted: true });
    return (await expectEventually(() => finalReportOf(reports, assignment.taskId), {
      timeoutMs: 20_000,
      message: `task for ${agentId} ends`,
    }))!;
  }

  async function storedSecrets(): Promise<string[]> {
    const rows: Array<{ secret: string }> = await adapters!
      .get(DataSource)
      .query(`SELECT "secret" FROM "adapters"."adapted_agents" WHERE "secret" IS NOT NULL`);
    return rows.map((row) => row.secret);
  }

  beforeAll(async () => {
    Logger.overrideLogger(logger);
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ ADAPTERS_HEARTBEAT_MS: '500', ADAPTERS_CALL_TIMEOUT_MS: '5000' });
    [a2a, openAi, webhook, mcp] = await Promise.all([
      startA2aGatedAgent({ name: 'Guarded Worker', bearerToken: A2A_TOKEN }),
      startOpenAiFake(),
      startWebhookTestAgent(WEBHOOK_SECRET, 'sync'),
      startMcpTestServer(),
    ]);
    a2a.openGate();
    openAi.respondWith(() => ({ content: 'A poem.' }));
    registry = await createService(RegistryModule, { name: 'registry', logger: ['log', 'warn', 'error'] });
    nats = await connectRaw(infrastructure.natsUrl);
    nats.subscribe('>', {
      callback: (_error, message) => {
        if (message.subject === RegisterAdaptedAgentV1.subject || message.subject === UpdateAdaptedAgentV1.subject) {
          return;
        }
        wire.push(`${message.subject} ${new TextDecoder().decode(message.data)}`);
      },
    });
    reports = recordTaskReports(nats);
    await startAdapters({ ADAPTERS_SECRET_KEY: FIRST_KEY });
  }, 180_000);

  afterAll(async () => {
    await nats?.close();
    await adapters?.close();
    await registry?.close();
    await Promise.allSettled([a2a?.stop(), openAi?.stop(), webhook?.stop(), mcp?.stop()]);
    await infrastructure?.stop();
    Logger.overrideLogger(['log', 'warn', 'error']);
  });

  it('are used toward the agent, stored sealed, and appear in no reply or card', async () => {
    agents.a2a = await ok<AdaptedAgentV1>(RegisterAdaptedAgentV1.subject, {
      owner: OWNER,
      endpoint: { kind: 'a2a', url: a2a.url, apiKey: A2A_TOKEN },
    });
    agents.openai = await ok<AdaptedAgentV1>(RegisterAdaptedAgentV1.subject, {
      owner: OWNER,
      name: 'guarded-poet',
      description: 'Writes poems behind an API key.',
      skills: [{ id: 'poem', name: 'Poem', description: 'A poem.', tags: [], examples: [] }],
      endpoint: { kind: 'openai', url: openAi.baseUrl, model: 'local', apiKey: OPENAI_KEY },
    });
    agents.mcp = await ok<AdaptedAgentV1>(RegisterAdaptedAgentV1.subject, {
      owner: OWNER,
      endpoint: { kind: 'mcp', url: mcp.url, apiKey: MCP_TOKEN },
    });
    agents.http = await ok<AdaptedAgentV1>(RegisterAdaptedAgentV1.subject, {
      owner: OWNER,
      name: 'guarded-hook',
      description: 'A signed webhook.',
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes.', tags: [], examples: [] }],
      endpoint: { kind: 'http', url: webhook.url, secret: WEBHOOK_SECRET },
    });
    for (const adapted of Object.values(agents)) expect(adapted.endpoint.hasSecret).toBe(true);

    expect(await runTask(agents.a2a.agent.id, 'Guarded work')).toMatchObject({ state: 'completed' });
    expect(a2a.authorizations).toContain(`Bearer ${A2A_TOKEN}`);
    expect(await runTask(agents.openai.agent.id, 'A poem, please')).toMatchObject({ state: 'completed' });
    expect(await runTask(agents.mcp.agent.id, 'Use add on 2 and 3.')).toMatchObject({ state: 'completed' });
    // Every request of the task's MCP session carried the token (registration's own probe included).
    expect(mcp.authorizations.length).toBeGreaterThan(0);
    expect(new Set(mcp.authorizations)).toEqual(new Set([`Bearer ${MCP_TOKEN}`]));
    expect(await runTask(agents.http.agent.id, 'hello')).toMatchObject({ state: 'completed' });
    expect(webhook.badSignatures).toBe(0);

    const views = await Promise.all(
      Object.values(agents).flatMap((adapted) => [
        ok(GetAdaptedAgentV1.subject, { id: adapted.agent.id }),
        ok(GetAgentV1.subject, { id: adapted.agent.id }),
      ]),
    );
    const replies = JSON.stringify([agents, views]);
    for (const secret of SECRETS) expect(replies).not.toContain(secret);
    const stored = await storedSecrets();
    expect(stored).toHaveLength(4);
    for (const value of stored) {
      expect(value).toMatch(/^aes256gcm\./);
      for (const secret of SECRETS) expect(value).not.toContain(secret);
    }
  });

  it("an agent's secret is rotated by giving its endpoint again", async () => {
    a2a.requireToken(A2A_TOKEN_ROTATED);
    const refused = await runTask(agents.a2a.agent.id, 'With the old token');
    expect(refused).toMatchObject({ state: 'failed', content: expect.stringContaining('401') });
    await ok<AdaptedAgentV1>(UpdateAdaptedAgentV1.subject, {
      id: agents.a2a.agent.id,
      owner: OWNER,
      endpoint: { kind: 'a2a', url: a2a.url, apiKey: A2A_TOKEN_ROTATED },
    });
    expect(await runTask(agents.a2a.agent.id, 'With the new token')).toMatchObject({ state: 'completed' });
    expect(a2a.authorizations.at(-1)).toBe(`Bearer ${A2A_TOKEN_ROTATED}`);
  });

  it('survive a rotation of the master key: re-sealed at boot, then the old key can go', async () => {
    const before = await storedSecrets();
    await adapters!.close();
    await startAdapters({ ADAPTERS_SECRET_KEY: SECOND_KEY, ADAPTERS_PREVIOUS_SECRET_KEYS: FIRST_KEY });
    const after = await storedSecrets();
    expect(after).toHaveLength(4);
    const keyIdOf = (value: string) => value.split('.')[1];
    for (const value of after) expect(before.map(keyIdOf)).not.toContain(keyIdOf(value));

    // The old key dropped: every secret still opens.
    await adapters!.close();
    await startAdapters({ ADAPTERS_SECRET_KEY: SECOND_KEY });
    expect(await runTask(agents.a2a.agent.id, 'After the key rotation')).toMatchObject({ state: 'completed' });
    expect(await runTask(agents.openai.agent.id, 'Another poem')).toMatchObject({ state: 'completed' });
    expect(await runTask(agents.mcp.agent.id, 'Use add on 4 and 5.')).toMatchObject({ state: 'completed' });
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${MCP_TOKEN}`);
    expect(await runTask(agents.http.agent.id, 'again')).toMatchObject({ state: 'completed' });
    expect(webhook.badSignatures).toBe(0);
  });

  it('never appear in a log line or on the wire (events, replies, reports, heartbeats)', () => {
    expect(logger.lines.length).toBeGreaterThan(10);
    expect(wire.length).toBeGreaterThan(10);
    for (const secret of SECRETS) {
      expect(logger.lines.filter((line) => line.includes(secret))).toEqual([]);
      expect(wire.filter((message) => message.includes(secret))).toEqual([]);
    }
  });
});
