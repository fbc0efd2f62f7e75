import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AssignTaskV1,
  DeregisterAdaptedAgentV1,
  GetAdaptedAgentV1,
  GetAgentV1,
  MessagePostedV1,
  RegisterAdaptedAgentV1,
  subjectFor,
  TaskCanceledV1,
  UpdateAdaptedAgentV1,
  type AdaptedAgentV1,
  type AgentCardV1,
  type MessagePostedV1Event,
  type ReportTaskV1Request,
  type TaskAssignmentV1Request,
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
import { startA2aWeatherAgent, type A2aWeatherAgent } from '../../deploy/local/a2a-weather-agent.js';
import { startMcpTestServer, type McpTestServer } from '../../apps/adapters/src/testing/mcp-test-server.js';
import { startWebhookTestAgent, type WebhookTestAgent } from '../../apps/adapters/src/testing/webhook-test-agent.js';
import { finalReportOf, newTaskAssignment, recordTaskReports } from '../../apps/adapters/src/testing/scheduler-side.js';

const OWNER = 'team-weather@example.org';

/** A port nothing listens on (one just released), so a connection there is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
const SECRET = 'a-webhook-secret-of-some-length';

/**
 * The adapters service against the real registry, a real broker and database, and real protocol peers: A2A agents
 * built with @a2a-js/sdk (v1.0 and v0.3), an MCP server built with the MCP SDK, the OpenAI-compatible fake, and
 * webhooks. The scheduler's side (assigning tasks, taking reports) and chat's (a message posted in the group) are
 * played over raw NATS with the public contract, as any peer would.
 */
describe('adapters service', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let nats: NatsConnection;
  let v1Agent: A2aWeatherAgent;
  let v03Agent: A2aWeatherAgent;
  let mcpServer: McpTestServer;
  let openAi: OpenAiFake;
  const webhooks: WebhookTestAgent[] = [];
  let reports: ReportTaskV1Request[] = [];
  const canceledTasks = new Set<string>();

  async function ok<T>(subject: string, body: unknown, timeoutMs = 15_000): Promise<T> {
    const reply = await rawRequest(nats, subject, body, timeoutMs);
    if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
    return reply.data as T;
  }

  function register(body: Record<string, unknown>): Promise<AdaptedAgentV1> {
    return ok<AdaptedAgentV1>(RegisterAdaptedAgentV1.subject, { owner: OWNER, ...body });
  }

  /** Plays the scheduler: hands the agent a task over its task subject and returns the acknowledgement. */
  async function assign(agentId: string, description: string, overrides: Partial<TaskAssignmentV1Request> = {}) {
    const assignment = newTaskAssignment(agentId, description, overrides);
    const ack = await ok<{ accepted: boolean }>(subjectFor(AssignTaskV1, agentId), assignment);
    expect(ack).toEqual({ accepted: true });
    return assignment;
  }

  function reportsOf(taskId: string): ReportTaskV1Request[] {
    return reports.filter((report) => report.taskId === taskId);
  }

  async function finalReport(taskId: string): Promise<ReportTaskV1Request> {
    return (await expectEventually(() => finalReportOf(reports, taskId), {
      timeoutMs: 20_000,
      message: `task ${taskId} ends`,
    }))!;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    [v1Agent, v03Agent, mcpServer, openAi] = await Promise.all([
      startA2aWeatherAgent({ protocol: '1.0' }),
      startA2aWeatherAgent({ protocol: '0.3' }),
      startMcpTestServer(),
      startOpenAiFake(),
    ]);
    infrastructure.applyEnvironment({
      REGISTRY_HEARTBEAT_TTL_SECONDS: '2',
      REGISTRY_PRESENCE_SWEEP_MS: '200',
      ADAPTERS_HEARTBEAT_MS: '300',
      ADAPTERS_CALLBACK_PORT: '0',
      ADAPTERS_CALL_TIMEOUT_MS: '5000',
    });
    services.push(await createService(RegistryModule, { name: 'registry', logger: false }));
    // Two replicas: they share each agent's task subject (queue group), so every task must be handled once.
    services.push(await createService(AdaptersModule, { name: 'adapters', logger: false }));
    services.push(await createService(AdaptersModule, { name: 'adapters', logger: false }));
    nats = await connectRaw(infrastructure.natsUrl);
    // The scheduler's report subject: record every report; a canceled task is refused as the scheduler would.
    reports = recordTaskReports(nats, (report) => canceledTasks.has(report.taskId));
  }, 180_000);

  afterAll(async () => {
    await nats?.close();
    for (const service of services.reverse()) await service.close();
    await Promise.allSettled([v1Agent?.stop(), v03Agent?.stop(), mcpServer?.stop(), openAi?.stop()]);
    await Promise.allSettled(webhooks.map((webhook) => webhook.stop()));
    await infrastructure?.stop();
  });

  describe('A2A v1.0 agent', () => {
    let adapted: AdaptedAgentV1;

    beforeAll(async () => {
      adapted = await register({ endpoint: { kind: 'a2a', url: v1Agent.url } });
    });

    it('is registered from its URL alone: the card is read from the agent and mapped onto ours', async () => {
      expect(adapted.agent).toMatchObject({
        name: 'weather-oracle',
        owner: OWNER,
        status: 'online',
        version: '1.0.0',
        endpoint: { kind: 'a2a', url: v1Agent.url },
        provider: { organization: 'Weather Test Inc.' },
        skills: [expect.objectContaining({ id: 'forecast', tags: ['weather', 'forecast', 'rain'] })],
      });
      expect(adapted.endpoint).toMatchObject({ kind: 'a2a', reachable: true, hasSecret: false });
      const card = await ok<AgentCardV1>(GetAgentV1.subject, { id: adapted.agent.id });
      expect(card.description).toContain('forecasts');
    });

    it('does a task: working becomes progress, the artifact becomes the result', async () => {
      const task = await assign(adapted.agent.id, 'Will it rain in Lyon tomorrow?');
      const final = await finalReport(task.taskId);
      expect(final).toMatchObject({
        state: 'completed',
        content: 'Forecast for Lyon: sunny, 24 °C, no rain expected.',
      });
      expect(reportsOf(task.taskId).map((report) => report.content)).toContain('Looking up the forecast for Lyon');
      expect(v1Agent.briefs.at(-1)).toContain('Will it rain in Lyon tomorrow?');
      expect(v1Agent.methods).toContain('SendStreamingMessage');
    });

    it('input-required: the question goes to the group and the answer comes back on the same A2A task', async () => {
      const task = await assign(adapted.agent.id, 'What will the weather be like tomorrow?');
      const question = await expectEventually(() =>
        reportsOf(task.taskId).find((report) => report.state === 'input-required'),
      );
      expect(question?.content).toBe('For which city?');
      const briefsBefore = v1Agent.briefs.length;
      // Chat posts the person's answer in the group; the adapter hears it like any member.
      const event: MessagePostedV1Event = {
        goalId: task.goalId,
        message: {
          id: randomUUID(),
          groupId: task.groupId,
          seq: 7,
          type: 'user',
          senderId: 'user',
          senderName: 'user',
          content: 'Nantes',
          turn: 3,
          createdAt: new Date().toISOString(),
        },
      };
      nats.publish(MessagePostedV1.subject, JSON.stringify(event));
      const final = await finalReport(task.taskId);
      expect(final).toMatchObject({ state: 'completed', content: expect.stringContaining('Forecast for Nantes') });
      // The same A2A task went on: no new task (brief) was started for the answer.
      expect(v1Agent.briefs.length).toBe(briefsBefore);
    });

    it('our cancel cancels the A2A task, and nothing is reported after it', async () => {
      const task = await assign(adapted.agent.id, 'Start a long-running watch of the sky over Brest.');
      await expectEventually(() =>
        reportsOf(task.taskId).find((report) => report.content === 'Watching the sky until told to stop'),
      );
      canceledTasks.add(task.taskId);
      nats.publish(
        subjectFor(TaskCanceledV1, adapted.agent.id),
        JSON.stringify({ taskId: task.taskId, reason: 'goal canceled' }),
      );
      await expectEventually(() => v1Agent.canceledTaskIds.length > 0, { message: 'the A2A task is canceled' });
      const before = reportsOf(task.taskId).length;
      await expectEventually(async () => {
        const view = await ok<{ endpoint: unknown }>(GetAdaptedAgentV1.subject, { id: adapted.agent.id });
        return view !== undefined;
      });
      expect(reportsOf(task.taskId).length).toBe(before);
      expect(reportsOf(task.taskId).some((report) => report.state === 'completed' || report.state === 'failed')).toBe(
        false,
      );
    });
  });

  it('two replicas serve an agent registered through either, and each task is handled exactly once', async () => {
    const agent = await startA2aWeatherAgent({ name: 'Shared Weather' });
    try {
      const adapted = await register({ endpoint: { kind: 'a2a', url: agent.url } });
      const assigned = [];
      for (const city of ['Arles', 'Brest', 'Caen', 'Dijon', 'Evian', 'Foix', 'Gap', 'Hyeres']) {
        assigned.push(await assign(adapted.agent.id, `Will it rain in ${city}?`));
      }
      for (const task of assigned) expect(await finalReport(task.taskId)).toMatchObject({ state: 'completed' });
      expect(agent.briefs).toHaveLength(assigned.length);
      for (const task of assigned) {
        expect(reportsOf(task.taskId).filter((report) => report.content?.endsWith('took the task'))).toHaveLength(1);
      }
    } finally {
      await agent.stop();
    }
  });

  it('an A2A v0.3 agent works the same, spoken to with the v0.3 methods', async () => {
    const adapted = await register({ endpoint: { kind: 'a2a', url: v03Agent.url } });
    expect(adapted.agent).toMatchObject({ name: 'legacy-weather-oracle', version: '0.3.0', status: 'online' });
    const task = await assign(adapted.agent.id, 'Is it windy in Rennes?');
    const final = await finalReport(task.taskId);
    expect(final).toMatchObject({ state: 'completed', content: expect.stringContaining('Forecast for Rennes') });
    expect(v03Agent.methods).toContain('message/stream');
    expect(v03Agent.methods.some((method) => /^[A-Z]/.test(method))).toBe(false);
  });

  it('an MCP server: its tools become skills, a task calls them and reports each call; tool errors are reported', async () => {
    const adapted = await register({ endpoint: { kind: 'mcp', url: mcpServer.url } });
    expect(adapted.agent.name).toBe('geo-math-tools');
    expect(adapted.agent.description).toContain('arithmetic');
    expect(adapted.agent.skills.map((skill) => skill.id).sort()).toEqual(['add', 'capital_of', 'shout']);

    const sum = await assign(adapted.agent.id, 'Use add on 19 and 23.');
    expect(await finalReport(sum.taskId)).toMatchObject({ state: 'completed', content: 'add: 42' });
    expect(
      reportsOf(sum.taskId).some((report) => report.content?.startsWith('Tool add({"a":19,"b":23}) answered: 42')),
    ).toBe(true);

    const both = await assign(adapted.agent.id, 'First capital_of Atlantis, then add 1 and 2.');
    const final = await finalReport(both.taskId);
    expect(final.state).toBe('completed');
    expect(final.content).toContain('capital_of: No capital known');
    expect(final.content).toContain('add: 3');
    expect(
      reportsOf(both.taskId).some(
        (report) => report.content?.includes('capital_of') && report.content.includes('reported an error'),
      ),
    ).toBe(true);
  });

  it('an OpenAI-compatible endpoint with a model and a system prompt is an agent; the API key stays secret', async () => {
    openAi.respondWith((request) => ({
      content: `Haiku about ${String(request.messages.at(-1)?.content).split('\n')[0]}`,
      usage: { promptTokens: 30, completionTokens: 12 },
    }));
    const adapted = await register({
      name: 'haiku-poet',
      description: 'Writes haiku about anything.',
      skills: [{ id: 'haiku', name: 'Haiku', description: 'A haiku on a theme.', tags: ['poetry'], examples: [] }],
      endpoint: {
        kind: 'openai',
        url: openAi.baseUrl,
        model: 'local-llama',
        systemPrompt: 'You are a poet.',
        apiKey: 'sk-very-secret',
      },
    });
    expect(adapted.agent.endpoint).toEqual({ kind: 'openai', url: openAi.baseUrl });
    expect(JSON.stringify(adapted)).not.toContain('sk-very-secret');
    expect(adapted.endpoint).toMatchObject({ model: 'local-llama', hasSecret: true, reachable: true });
    const task = await assign(adapted.agent.id, 'Write a haiku about autumn rain.');
    expect(await finalReport(task.taskId)).toMatchObject({
      state: 'completed',
      content: 'Haiku about # Write a haiku about autumn rain.',
      usage: { promptTokens: 30, completionTokens: 12, modelCalls: 1 },
    });
    const request = openAi.requests.at(-1)!;
    expect(request.model).toBe('local-llama');
    expect(request.messages[0]).toEqual({ role: 'system', content: 'You are a poet.' });
  });

  describe('webhook agents', () => {
    const webhookCard = (name: string, url: string) => ({
      name,
      description: 'Translates short texts.',
      skills: [{ id: 'translate', name: 'Translate', description: 'Translate a text.', tags: [], examples: [] }],
      endpoint: { kind: 'http', url, secret: SECRET },
    });

    it('sync: the signed delivery is answered with the result at once', async () => {
      const webhook = await startWebhookTestAgent(SECRET, 'sync');
      webhooks.push(webhook);
      const adapted = await register(webhookCard('sync-translator', webhook.url));
      expect(JSON.stringify(adapted)).not.toContain(SECRET);
      const task = await assign(adapted.agent.id, 'bonjour le monde');
      expect(await finalReport(task.taskId)).toMatchObject({
        state: 'completed',
        content: 'Translated: BONJOUR LE MONDE',
      });
      expect(webhook.deliveries[0]).toMatchObject({
        taskId: task.taskId,
        agentId: adapted.agent.id,
        goalId: task.goalId,
      });
      expect(webhook.badSignatures).toBe(0);
    });

    it('async: 202, then a signed callback carries progress and the result; a forged one is refused', async () => {
      const webhook = await startWebhookTestAgent(SECRET, 'async');
      webhooks.push(webhook);
      const adapted = await register(webhookCard('async-translator', webhook.url));
      expect(adapted.endpoint.callbackUrlTemplate).toMatch(/\/callbacks\/[0-9a-f-]+\/\{taskId\}$/);
      const task = await assign(adapted.agent.id, 'guten tag');
      const delivery = (await expectEventually(() =>
        webhook.deliveries.find((entry) => entry.taskId === task.taskId),
      ))!;
      expect(await webhook.callBack(delivery, { result: 'forged' }, 'not-the-secret-at-all')).toBe(401);
      expect(await webhook.callBack(delivery, { state: 'working', reason: 'halfway' })).toBe(200);
      expect(await webhook.callBack(delivery, { result: 'GOOD DAY' })).toBe(200);
      expect(await webhook.callBack(delivery, { result: 'GOOD DAY' })).toBe(200); // repeated: acknowledged, once
      expect(
        await webhook.callBack(
          { ...delivery, callbackUrl: delivery.callbackUrl.replace(task.taskId, randomUUID()) },
          { result: 'x' },
        ),
      ).toBe(404);
      expect(reportsOf(task.taskId).map((report) => [report.state, report.content])).toEqual([
        ['working', 'async-translator (http endpoint) took the task'],
        ['working', 'halfway'],
        ['completed', 'GOOD DAY'],
      ]);
    });
  });

  describe('registration rules', () => {
    it('refuses what cannot work, with a reason: no secret for a webhook, an unreachable A2A URL, no name', async () => {
      const noSecret = await rawRequest(nats, RegisterAdaptedAgentV1.subject, {
        owner: OWNER,
        name: 'x',
        description: 'x',
        skills: [{ id: 'x', name: 'x', description: 'x' }],
        endpoint: { kind: 'http', url: 'http://127.0.0.1:9/hook' },
      });
      expect(noSecret.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('secret is required'),
      });
      const unreachable = await rawRequest(
        nats,
        RegisterAdaptedAgentV1.subject,
        {
          owner: OWNER,
          endpoint: { kind: 'a2a', url: `http://127.0.0.1:${await closedPort()}` },
        },
        30_000,
      );
      expect(unreachable.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(/could not be reached or read: .*ECONNREFUSED/),
      });
      const nameless = await rawRequest(nats, RegisterAdaptedAgentV1.subject, {
        owner: OWNER,
        endpoint: { kind: 'openai', url: openAi.baseUrl, model: 'm' },
      });
      expect(nameless.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('name, description, skills'),
      });
      const badKind = await rawRequest(nats, RegisterAdaptedAgentV1.subject, {
        owner: OWNER,
        endpoint: { kind: 'nats', url: 'http://x' },
      });
      expect(badKind.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    });

    it('only the owner updates or deregisters; deregistering removes the card', async () => {
      const webhook = await startWebhookTestAgent(SECRET, 'sync');
      webhooks.push(webhook);
      const adapted = await register({
        name: 'short-lived',
        description: 'Here and gone.',
        skills: [{ id: 'noop', name: 'Noop', description: 'Nothing.', tags: [], examples: [] }],
        endpoint: { kind: 'http', url: webhook.url, secret: SECRET },
      });
      const stranger = await rawRequest(nats, UpdateAdaptedAgentV1.subject, {
        id: adapted.agent.id,
        owner: 'someone-else',
        description: 'mine',
      });
      expect(stranger.error).toMatchObject({ code: 'FORBIDDEN' });
      const updated = await ok<AdaptedAgentV1>(UpdateAdaptedAgentV1.subject, {
        id: adapted.agent.id,
        owner: OWNER,
        description: 'Here, changed, and gone.',
      });
      expect(updated.agent).toMatchObject({ description: 'Here, changed, and gone.', revision: 2 });
      expect(await ok(DeregisterAdaptedAgentV1.subject, { id: adapted.agent.id, owner: OWNER })).toEqual({
        id: adapted.agent.id,
        deregistered: true,
      });
      expect((await rawRequest(nats, GetAgentV1.subject, { id: adapted.agent.id })).error).toMatchObject({
        code: 'NOT_FOUND',
      });
      expect((await rawRequest(nats, GetAdaptedAgentV1.subject, { id: adapted.agent.id })).error).toMatchObject({
        code: 'NOT_FOUND',
      });
    });
  });

  it('presence: an endpoint that goes down goes offline (and its tasks fail with the reason); back up, back online', async () => {
    const agent = await startA2aWeatherAgent({ name: 'Flaky Weather' });
    const adapted = await register({ endpoint: { kind: 'a2a', url: agent.url } });
    const status = async () => (await ok<AgentCardV1>(GetAgentV1.subject, { id: adapted.agent.id })).status;
    // Past the 2 s TTL and still online: the adapter heartbeats for it.
    const started = Date.now();
    await expectEventually(async () => Date.now() - started > 2500 && (await status()) === 'online', {
      timeoutMs: 10_000,
    });
    await agent.stop();
    await expectEventually(async () => (await status()) === 'offline', { timeoutMs: 10_000, message: 'goes offline' });
    const view = await ok<AdaptedAgentV1>(GetAdaptedAgentV1.subject, { id: adapted.agent.id });
    expect(view.endpoint).toMatchObject({ reachable: false, lastError: expect.stringContaining('ECONNREFUSED') });
    const task = await assign(adapted.agent.id, 'Will it snow in Lille?');
    expect(await finalReport(task.taskId)).toMatchObject({
      state: 'failed',
      content: expect.stringMatching(
        /^flaky-weather \(a2a endpoint http:\/\/127\.0\.0\.1:\d+\): Reading the A2A agent card .* failed after 3 attempts: .*ECONNREFUSED/,
      ),
    });
    // The same port again: the next probe heartbeats it back online.
    const revived = await startA2aWeatherAgent({ name: 'Flaky Weather', port: Number(new URL(agent.url).port) });
    try {
      await expectEventually(async () => (await status()) === 'online', { timeoutMs: 10_000, message: 'back online' });
    } finally {
      await revived.stop();
    }
  });
});
