import { randomUUID } from 'node:crypto';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  ListAgentsV1,
  ListGoalEventsV1,
  RegisterAgentV1,
  type GoalEventV1,
  type GoalV1,
  type GroupV1,
  type ListAgentsV1Response,
  type ListGoalEventsV1Response,
  type ListMessagesV1Response,
  type RegisterAgentV1Response,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
  adminAuthHeaders,
} from '@ioa/testing';
// The gateway's integration test boots the real services behind it, as the scheduler's does with its peers: what is
// tested is the HTTP API over the real conversation between services, on a real broker and database.
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { AgentHostModule } from '../../../agent-host/src/agent-host.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { ChatModule } from '../../../chat/src/chat.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { RegistryModule } from '../../../registry/src/registry.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { SchedulerModule } from '../../../scheduler/src/scheduler.module.js';
import { createGatewayApp } from '../gateway.app.js';
import { GoalEventStreams } from './goal-event-streams.js';
import { GoalEventTail } from './goal-event-tail.js';
import { SseClient, type ReceivedSseEvent } from './testing/sse-client.js';

/**
 * Shorter than production's 15 s, so a test can see one; long enough that the streams below get their events from
 * the live tail, not from the log re-read that each heartbeat also does.
 */
const HEARTBEAT_MS = 2000;
/** A goal of the built-in agents: an async code run and a document search, then a sync report by the writer. */
const BUILT_IN_GOAL = {
  goal: 'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.',
  members: ['code-runner', 'doc-researcher', 'writer'],
};
/** Goals run end to end on a loaded machine: generous deadlines, never sleeps. */
const GOAL_DEADLINE_MS = 90_000;

interface HttpResult<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * The goal and group API over a running platform: registry, chat, scheduler and agent-host (built-in agents,
 * deterministic offline model) behind the gateway, on a real broker and database.
 */
describe('the goals API over a running platform', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let external: NatsConnection;
  const clients: SseClient[] = [];

  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<HttpResult<T>> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
  }

  async function submit(body: Record<string, unknown>): Promise<string> {
    const { status, body: submitted } = await call<{ id: string; status: string }>('POST', '/v1/goals', body);
    expect(status).toBe(202);
    return submitted.id;
  }

  async function goalWhen(id: string, predicate: (goal: GoalV1) => boolean, message: string): Promise<GoalV1> {
    return expectEventually(
      async () => {
        const { body } = await call<GoalV1>('GET', `/v1/goals/${id}`);
        if (!predicate(body)) throw new Error(`last seen: ${body.status} ${body.statusReason ?? ''}`);
        return body;
      },
      { timeoutMs: GOAL_DEADLINE_MS, intervalMs: 100, message },
    );
  }

  async function stream(id: string, query = '', headers: Record<string, string> = {}): Promise<SseClient> {
    const client = await SseClient.open(`${baseUrl}/v1/goals/${id}/events${query}`, headers);
    clients.push(client);
    return client;
  }

  /** The goal's whole log, straight from the scheduler (what the stream must reproduce). */
  async function log(id: string): Promise<GoalEventV1[]> {
    const reply = await rawRequest(external, ListGoalEventsV1.subject, { goalId: id, afterSeq: 0, limit: 1000 });
    return (reply.data as ListGoalEventsV1Response).items;
  }

  function lastStatus(events: ReceivedSseEvent[]): string | undefined {
    const statuses = events.filter((event) => event.event === 'status');
    return (statuses.at(-1)?.data as GoalEventV1 | undefined)?.data.status as string | undefined;
  }

  const ended = (events: ReceivedSseEvent[]) => ['completed', 'failed', 'canceled'].includes(lastStatus(events) ?? '');

  /** An external agent that speaks for itself and never does: its goals wait on it until canceled. */
  async function registerSilentAgent(): Promise<string> {
    const name = `silent-${randomUUID().slice(0, 8)}`;
    const reply = await rawRequest(external, RegisterAgentV1.subject, {
      name,
      description: 'Listens, and says nothing.',
      skills: [{ id: 'listen', name: 'Listen', description: 'Listens to the conversation.' }],
      owner: 'gateway-test',
      endpoint: { kind: 'nats' },
      metadata: { communicator: 'self' },
    });
    expect(reply.ok).toBe(true);
    return (reply.data as RegisterAgentV1Response).agent.name;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      GATEWAY_SSE_HEARTBEAT_MS: String(HEARTBEAT_MS),
      AGENT_HOST_HEARTBEAT_MS: '1000',
    });
    for (const [module, name] of [
      [RegistryModule, 'registry'],
      [ChatModule, 'chat'],
      [SchedulerModule, 'scheduler'],
      [AgentHostModule, 'agent-host'],
    ] as const) {
      services.push(await createService(module, { name, logger: false }));
    }
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    external = await connectRaw(infrastructure.natsUrl);
    await expectEventually(
      async () => {
        const reply = await rawRequest(external, ListAgentsV1.subject, { owner: 'ioa-builtin', status: 'online' });
        return (reply.data as ListAgentsV1Response).items.length === 3;
      },
      { timeoutMs: 120_000, message: 'the built-in agents come online' },
    );
  }, 180_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  afterAll(async () => {
    await external?.close();
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  describe('a goal of the built-in agents, from submission to its conclusion', () => {
    let goalId: string;
    let full: ReceivedSseEvent[];

    it('POST /v1/goals answers 202 at once with the id, the status and the Location', async () => {
      const { status, body, headers } = await call<{ id: string; status: string }>('POST', '/v1/goals', BUILT_IN_GOAL);
      expect(status).toBe(202);
      expect(body).toEqual({ id: expect.any(String), status: 'submitted' });
      expect(headers.get('location')).toBe(`/v1/goals/${body.id}`);
      goalId = body.id;
    });

    it('streams every event of the goal once, in order, and ends the stream after the conclusion', async () => {
      const client = await stream(goalId);
      expect(client.status).toBe(200);
      expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/);
      full = await client.waitForEnd(GOAL_DEADLINE_MS);

      // `id` is the log's seq: 1, 2, 3… without gaps or repeats; `event` is the type; `data` the whole entry.
      expect(client.ids).toEqual(full.map((_event, index) => index + 1));
      for (const event of full) {
        const data = event.data as GoalEventV1;
        expect(data).toMatchObject({ goalId, seq: Number(event.id), type: event.event });
      }
      const types = new Set(full.map((event) => event.event));
      expect([...types]).toEqual(expect.arrayContaining(['status', 'team', 'message', 'task']));
      const statuses = full
        .filter((event) => event.event === 'status')
        .map((event) => (event.data as GoalEventV1).data.status);
      expect(statuses).toEqual(['submitted', 'forming_team', 'working', 'completed']);
      // It is exactly the scheduler's log (nothing was appended after the end).
      expect(full.map((event) => event.data)).toEqual((await log(goalId)).slice(0, full.length));
    });

    it('GET /v1/goals/:id shows the team, the group, the tasks with their states, the conclusion and the usage', async () => {
      const { status, body: goal } = await call<GoalV1>('GET', `/v1/goals/${goalId}`);
      expect(status).toBe(200);
      expect(goal).toMatchObject({ id: goalId, goal: BUILT_IN_GOAL.goal, status: 'completed', statusReason: null });
      expect(goal.team.map((member) => member.name)).toEqual(BUILT_IN_GOAL.members);
      expect(goal.groupId).toEqual(expect.any(String));
      expect(goal.tasks.map((task) => [task.assigneeName, task.mode, task.state])).toEqual(
        expect.arrayContaining([
          ['code-runner', 'async', 'completed'],
          ['doc-researcher', 'async', 'completed'],
          ['writer', 'sync', 'completed'],
        ]),
      );
      expect(goal.conclusion).toMatch(/^# Report: /);
      expect(goal.usage).toEqual({
        promptTokens: expect.any(Number),
        completionTokens: expect.any(Number),
        modelCalls: expect.any(Number),
        seconds: expect.any(Number),
      });
      expect(goal.usage.promptTokens + goal.usage.completionTokens).toBeGreaterThan(0);
      const conclusion = full.filter((event) => event.event === 'status').at(-1)?.data as GoalEventV1;
      expect(conclusion.data.conclusion).toBe(goal.conclusion);
    });

    it('resumes after Last-Event-ID (or ?after=) with the rest of the log, nothing repeated', async () => {
      const middle = Math.floor(full.length / 2);
      const byHeader = await stream(goalId, '', { 'Last-Event-ID': String(middle) });
      const byQuery = await stream(goalId, `?after=${middle}`);
      // A reconnecting EventSource sends the header and keeps its first URL: the header wins.
      const both = await stream(goalId, '?after=1', { 'Last-Event-ID': String(middle) });
      for (const client of [byHeader, byQuery, both]) {
        await client.waitForEnd();
        expect(client.events).toEqual(full.slice(middle));
      }
    });

    it('answers 204 to a client that already has every event of an ended goal, which stops an EventSource', async () => {
      const client = await stream(goalId, '', { 'Last-Event-ID': String(full.length) });
      expect(client.status).toBe(204);
      const beyond = await stream(goalId, '', { 'Last-Event-ID': String(full.length + 5) });
      expect(beyond.status).toBe(400);
      expect(beyond.json.message).toContain(`has only ${full.length} events`);
    });

    it('lists the group and pages its messages', async () => {
      const { body: goal } = await call<GoalV1>('GET', `/v1/goals/${goalId}`);
      const { status, body: group } = await call<GroupV1>('GET', `/v1/groups/${goal.groupId}`);
      expect(status).toBe(200);
      expect(group).toMatchObject({ id: goal.groupId, goalId, state: 'concluded', conclusion: goal.conclusion });
      expect(group.members.map((member) => member.name)).toEqual(BUILT_IN_GOAL.members);
      expect(group.leaderId).toBe(goal.team[0].agentId);

      const pages: ListMessagesV1Response[] = [];
      let afterSeq = 0;
      for (;;) {
        const { status: pageStatus, body: page } = await call<ListMessagesV1Response>(
          'GET',
          `/v1/groups/${goal.groupId}/messages?afterSeq=${afterSeq}&limit=3`,
        );
        expect(pageStatus).toBe(200);
        pages.push(page);
        if (page.items.length < 3) break;
        afterSeq = page.items[2].seq;
      }
      const messages = pages.flatMap((page) => page.items);
      expect(pages.length).toBeGreaterThan(1);
      expect(messages.map((message) => message.seq)).toEqual(messages.map((_message, index) => index + 1));
      expect(messages.length).toBe(group.lastSeq);
      expect(messages.map((message) => message.type)).toEqual(
        expect.arrayContaining(['async_task_assign', 'sync_task_assign', 'result', 'conclude']),
      );
      expect(messages.at(-1)).toMatchObject({ type: 'conclude', content: goal.conclusion });
    });

    it('re-opens the concluded goal on a follow-up message; a following stream sees the person and the new end', async () => {
      // follow=true: the stream stays open past the goal's end, as a dashboard would keep it.
      const client = await stream(goalId, '?follow=true', { 'Last-Event-ID': String(full.length) });
      expect(client.status).toBe(200);
      const { status, body } = await call<GoalV1>('POST', `/v1/goals/${goalId}/messages`, {
        content: 'Thanks. Please also run `console.log(2 + 2)`.',
        author: 'ada',
      });
      expect(status).toBe(202);
      expect(body).toMatchObject({ id: goalId, status: 'working', endedAt: null });

      await client.waitFor(
        (events) => events.filter((event) => event.event === 'status').length >= 2 && ended(events),
        { timeoutMs: GOAL_DEADLINE_MS, message: 'the re-opened goal completes again' },
      );
      const events = client.events.map((event) => event.data as GoalEventV1);
      expect(events[0].seq).toBe(full.length + 1);
      const person = events.find((event) => event.type === 'message' && event.data.type === 'user');
      expect(person?.data).toMatchObject({
        content: 'Thanks. Please also run `console.log(2 + 2)`.',
        senderName: 'ada',
      });
      const statuses = events.filter((event) => event.type === 'status').map((event) => event.data.status);
      expect(statuses[0]).toBe('working');
      expect(statuses.at(-1)).toBe('completed');
      expect((await call<GoalV1>('GET', `/v1/goals/${goalId}`)).body.status).toBe('completed');

      // Still open after the end (follow), kept alive by heartbeats.
      const comments = client.comments;
      await expectEventually(() => client.comments > comments, { message: 'a heartbeat arrives' });
      expect(client.endedByServer).toBe(false);
    });

    it('releases the live tail when the clients leave', async () => {
      await Promise.all(clients.splice(0).map((client) => client.close()));
      await expectEventually(
        () => gateway.get(GoalEventStreams).openStreams === 0 && gateway.get(GoalEventTail).watchedGoals === 0,
        { message: 'every stream and tail listener is released' },
      );
    });
  });

  it('resumes a live stream mid-goal: the events before and after the reconnection are the whole log', async () => {
    const goalId = await submit(BUILT_IN_GOAL);
    const first = await stream(goalId);
    await first.waitFor((events) => events.length >= 3);
    await first.close();
    const received = first.events.length;
    const second = await stream(goalId, '', { 'Last-Event-ID': String(first.events.at(-1)?.id) });
    await second.waitForEnd(GOAL_DEADLINE_MS);
    const ids = [...first.ids, ...second.ids];
    expect(ids).toEqual(ids.map((_id, index) => index + 1));
    expect(second.ids[0]).toBe(received + 1);
    expect(lastStatus(second.events)).toBe('completed');
    expect([...first.events, ...second.events].map((event) => event.data)).toEqual(
      (await log(goalId)).slice(0, ids.length),
    );
  });

  it('streams a goal that fails (an unknown member) to its failed status, with the reason', async () => {
    const goalId = await submit({ goal: 'Say hello', members: ['nobody-by-this-name'] });
    const client = await stream(goalId);
    const events = await client.waitForEnd(GOAL_DEADLINE_MS);
    expect(lastStatus(events)).toBe('failed');
    const failure = events.at(-1)?.data as GoalEventV1;
    expect(String(failure.data.statusReason)).toContain('nobody-by-this-name');
  });

  it('cancels a working goal: 200 with the goal, the stream ends with the cancellation, nothing more is accepted', async () => {
    const member = await registerSilentAgent();
    const goalId = await submit({ goal: 'Wait for the silent one', members: [member] });
    const client = await stream(goalId);
    await client.waitFor((events) => lastStatus(events) === 'working', { message: 'the goal is working' });
    // The live tail itself, beside the stream: every event appended from now on, once, in order.
    const live: GoalEventV1[] = [];
    const stopListening = await gateway.get(GoalEventTail).listen(goalId, (event) => live.push(event));

    const { status, body } = await call<GoalV1>('POST', `/v1/goals/${goalId}/cancel`, { reason: 'Changed my mind' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: goalId, status: 'canceled', statusReason: 'Changed my mind' });
    const events = await client.waitForEnd();
    expect(lastStatus(events)).toBe('canceled');
    await expectEventually(() => live.some((event) => event.type === 'status' && event.data.status === 'canceled'));
    stopListening();
    const appended = (await log(goalId)).filter((event) => event.seq >= live[0].seq);
    expect(live.map((event) => ({ ...event }))).toEqual(appended.slice(0, live.length));

    // Canceling again changes nothing (no body needed); a canceled goal takes no more messages.
    const again = await call<GoalV1>('POST', `/v1/goals/${goalId}/cancel`);
    expect(again).toMatchObject({ status: 200, body: { status: 'canceled', statusReason: 'Changed my mind' } });
    const message = await call('POST', `/v1/goals/${goalId}/messages`, { content: 'Hello?' });
    expect(message.status).toBe(409);
    expect(message.body).toMatchObject({ error: 'INVALID_STATE' });
  });

  it('refuses to cancel a goal that has already completed (409)', async () => {
    const goalId = await submit(BUILT_IN_GOAL);
    await goalWhen(goalId, (goal) => goal.status === 'completed', 'the goal completes');
    const { status, body } = await call('POST', `/v1/goals/${goalId}/cancel`, {});
    expect(status).toBe(409);
    expect(body).toMatchObject({ error: 'INVALID_STATE', message: expect.stringContaining('nothing to cancel') });
  });

  it('ends the open streams when the gateway shuts down, rather than holding the shutdown', async () => {
    const goalId = await submit({ goal: 'Wait for the silent one', members: [await registerSilentAgent()] });
    const second = await createGatewayApp({ logger: false });
    await second.listen(0, '127.0.0.1');
    const url = (await second.getUrl()).replace('[::1]', '127.0.0.1');
    const client = await SseClient.open(`${url}/v1/goals/${goalId}/events?follow=true`);
    clients.push(client);
    await client.waitFor((events) => events.length > 0);
    await second.close();
    await client.waitForEnd();
    await call('POST', `/v1/goals/${goalId}/cancel`);
  });

  it('answers 404 for a goal or a group that does not exist, also before a stream would start', async () => {
    const id = randomUUID();
    for (const path of [`/v1/goals/${id}`, `/v1/groups/${id}`, `/v1/groups/${id}/messages`]) {
      const { status, body } = await call('GET', path);
      expect({ path, status, error: body.error }).toEqual({ path, status: 404, error: 'NOT_FOUND' });
    }
    for (const path of [`/v1/goals/${id}/messages`, `/v1/goals/${id}/cancel`]) {
      const { status } = await call('POST', path, { content: 'hello' });
      expect({ path, status }).toEqual({ path, status: 404 });
    }
    const client = await stream(id);
    expect(client.status).toBe(404);
    expect(client.headers.get('content-type')).toContain('application/json');
    expect(client.json).toMatchObject({ statusCode: 404, error: 'NOT_FOUND' });
    // Setting up the stream subscribed to the live tail; the 404 released it.
    await expectEventually(() => gateway.get(GoalEventTail).watchedGoals === 0);
  });
});
