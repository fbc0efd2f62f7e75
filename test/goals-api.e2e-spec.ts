import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  ProposeMoveV1,
  RegisterAgentV1,
  TurnGrantedV1,
  USER_SPEAKER,
  type GoalEventV1,
  type GoalV1,
  type ListMessagesV1Response,
  type RegisterAgentV1Response,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
  adminAuthHeaders,
} from '@ioa/testing';
import { createGatewayApp } from '../apps/gateway/src/gateway.app.js';
import { SseClient, type ReceivedSseEvent } from '../apps/gateway/src/goals/testing/sse-client.js';
import { GOAL_SERVICES, startServices } from './support/platform-services.js';

const GOAL_DEADLINE_MS = 90_000;

function statusesOf(events: ReceivedSseEvent[]): string[] {
  return events
    .filter((event) => event.event === 'status')
    .map((event) => String((event.data as GoalEventV1).data.status));
}

/**
 * The goals API as its users see it: a person on HTTP (REST and Server-Sent Events) and an external agent on a bare
 * NATS connection, with the whole platform behind the gateway — registry, discovery, chat, scheduler and agent-host
 * (the built-in agents and the deterministic offline model), on a real broker and database.
 */
describe('goals over HTTP, with the whole platform behind the gateway', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let external: NatsConnection;
  const subscriptions: Subscription[] = [];
  const clients: SseClient[] = [];

  async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  async function stream(goalId: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = await SseClient.open(`${baseUrl}/v1/goals/${goalId}/events`, headers);
    clients.push(client);
    expect(client.status).toBe(200);
    return client;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ AGENT_HOST_HEARTBEAT_MS: '1000' });
    services.push(...(await startServices(GOAL_SERVICES)));
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    external = await connectRaw(infrastructure.natsUrl);
    // Team formation searches discovery: wait until it has indexed the built-in agents (asked over REST, too).
    await expectEventually(
      async () => {
        const { body } = await call<{ items: Array<{ name: string }> }>(
          'GET',
          '/v1/agents?q=write%20a%20report&topK=10',
        );
        const names = (body.items ?? []).map((item) => item.name);
        return ['code-runner', 'doc-researcher', 'writer'].every((name) => names.includes(name));
      },
      { timeoutMs: 150_000, intervalMs: 250, message: 'discovery indexes the built-in agents' },
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    subscriptions.forEach((subscription) => subscription.unsubscribe());
    await external?.close();
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it('forms a team on its own for a goal that names no agents, and streams the work to its conclusion', async () => {
    const { status, body: submitted } = await call<{ id: string; status: string }>('POST', '/v1/goals', {
      goal: 'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.',
    });
    expect(status).toBe(202);
    const client = await stream(submitted.id);
    const events = await client.waitForEnd(GOAL_DEADLINE_MS);

    expect(client.ids).toEqual(events.map((_event, index) => index + 1));
    expect(statusesOf(events)).toEqual(['submitted', 'forming_team', 'working', 'completed']);
    const team = events.find((event) => event.event === 'team')?.data as GoalEventV1;
    const members = team.data.members as Array<{ name: string; reason: string }>;
    expect(members.map((member) => member.name).sort()).toEqual(['code-runner', 'doc-researcher', 'writer']);
    expect(members.every((member) => member.reason.length > 0)).toBe(true);
    const assignments = events.filter(
      (event) => event.event === 'message' && (event.data as GoalEventV1).data.type === 'async_task_assign',
    );
    expect(assignments.length).toBeGreaterThan(0);

    const { body: goal } = await call<GoalV1>('GET', `/v1/goals/${submitted.id}`);
    expect(goal.status).toBe('completed');
    expect(goal.conclusion).toContain('42');
    expect(goal.tasks.every((task) => task.state === 'completed')).toBe(true);
  });

  it('lets a person answer the question of an external agent, and resumes the stream across the wait', async () => {
    // An agent that speaks for itself over a bare NATS connection: asks the person first, concludes with the answer.
    const registered = await rawRequest(external, RegisterAgentV1.subject, {
      name: 'greeter',
      description: 'Writes greetings in the language the person asks for.',
      skills: [{ id: 'greet', name: 'Greet', description: 'Writes a greeting.' }],
      owner: 'goals-api-test',
      endpoint: { kind: 'nats' },
      metadata: { communicator: 'self' },
    });
    expect(registered.ok).toBe(true);
    const agentId = (registered.data as RegisterAgentV1Response).agent.id;
    const rejections: unknown[] = [];
    subscriptions.push(
      external.subscribe(TurnGrantedV1.subject, {
        callback: (_error, message) => {
          const turn = message.json<TurnGrantedV1Event>();
          if (turn.speakerId !== agentId) return;
          const answer = [...turn.recentMessages].reverse().find((entry) => entry.type === 'user');
          const move = answer
            ? { type: 'conclude', content: `Hallo, Team! (greeting in ${answer.content})` }
            : { type: 'discussion', content: 'Which language should the greeting be in?', nextSpeaker: USER_SPEAKER };
          void rawRequest(external, ProposeMoveV1.subject, {
            groupId: turn.groupId,
            speakerId: agentId,
            turn: turn.turn,
            ...move,
          }).then((reply) => {
            if (!reply.ok) rejections.push(reply.error);
          });
        },
      }),
    );
    await external.flush();

    const { body: submitted } = await call<{ id: string }>('POST', '/v1/goals', {
      goal: 'Write a greeting for the team',
      members: ['greeter'],
    });
    const first = await stream(submitted.id);
    await first.waitFor((events) => statusesOf(events).includes('input_required'), {
      timeoutMs: GOAL_DEADLINE_MS,
      message: 'the agent asks the person',
    });
    const question = first.events.find(
      (event) => event.event === 'message' && (event.data as GoalEventV1).data.nextSpeaker === USER_SPEAKER,
    );
    expect((question?.data as GoalEventV1).data.content).toBe('Which language should the greeting be in?');
    // The person closes the page while thinking.
    await first.close();
    const lastSeen = first.events.at(-1)?.id as string;

    const answered = await call<GoalV1>('POST', `/v1/goals/${submitted.id}/messages`, { content: 'German' });
    expect(answered).toMatchObject({ status: 202, body: { status: 'working' } });

    const second = await stream(submitted.id, { 'Last-Event-ID': lastSeen });
    await second.waitForEnd(GOAL_DEADLINE_MS);
    const ids = [...first.ids, ...second.ids];
    expect(ids).toEqual(ids.map((_id, index) => index + 1));
    expect(statusesOf(second.events)).toEqual(['working', 'completed']);
    const concluded = second.events.find(
      (event) => event.event === 'message' && (event.data as GoalEventV1).data.type === 'conclude',
    );
    expect((concluded?.data as GoalEventV1).data.content).toBe('Hallo, Team! (greeting in German)');
    expect(rejections).toEqual([]);

    const { body: goal } = await call<GoalV1>('GET', `/v1/goals/${submitted.id}`);
    expect(goal).toMatchObject({ status: 'completed', conclusion: 'Hallo, Team! (greeting in German)' });
    const { body: messages } = await call<ListMessagesV1Response>('GET', `/v1/groups/${goal.groupId}/messages`);
    const spoken = messages.items.filter((message) => message.type !== 'system'); // notices the chat writes itself
    expect(spoken.map((message) => [message.type, message.senderId])).toEqual([
      ['discussion', agentId],
      ['user', 'user'],
      ['conclude', agentId],
    ]);
  });
});
