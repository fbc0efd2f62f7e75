import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { MessagePostedV1, TaskUpdatedV1, type GoalV1 } from '@ioa/contracts';
import {
  adminAuthHeaders,
  connectRaw,
  expectEventually,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { createGatewayApp } from '../apps/gateway/src/gateway.app.js';
import { GOAL_SERVICES, startServices } from './support/platform-services.js';

const POISON_PER_STREAM = 500;
const GOAL_DEADLINE_MS = 120_000;

interface ConsumerHealth {
  name: string;
  pending: number;
  ackPending: number;
  deadLetters: number;
  stuck: boolean;
}

interface PlatformHealth {
  status: string;
  services: Record<string, { consumers?: ConsumerHealth[] }>;
}

/** A task update that passes for one at a glance, with a NUL in its text (PostgreSQL cannot store it). */
function poisonTaskUpdate(index: number): unknown {
  const now = new Date().toISOString();
  return {
    task: {
      id: randomUUID(),
      goalId: randomUUID(),
      groupId: randomUUID(),
      parentTaskId: null,
      assignerId: randomUUID(),
      assigneeId: randomUUID(),
      assigneeName: 'writer',
      mode: 'async',
      description: `poison ${index}`,
      brief: null,
      state: 'completed',
      result: `done\u0000${index}`,
      statusMessage: null,
      deadline: null,
      attempts: 1,
      createdAt: now,
      updatedAt: now,
    },
  };
}

/**
 * The finding "poison events stall goals forever", replayed against the whole platform: a flood of events that
 * cannot be handled lands on the streams chat and the scheduler consume, and the platform keeps working — the flood
 * ends as dead letters an operator can see, no consumer is stuck, and a goal submitted after it completes.
 */
describe('poison events on the streams chat and the scheduler consume', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let external: NatsConnection;

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ AGENT_HOST_HEARTBEAT_MS: '1000', EVENT_RETRY_BACKOFF_MS: '100,200' });
    services.push(...(await startServices(GOAL_SERVICES)));
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    external = await connectRaw(infrastructure.natsUrl);
    await expectEventually(
      async () => {
        const { body } = await call<{ items?: Array<{ name: string }> }>(
          'GET',
          '/v1/agents?q=write%20a%20report&topK=10',
        );
        return (body.items ?? []).some((item) => item.name === 'writer');
      },
      { timeoutMs: 150_000, intervalMs: 250, message: 'discovery indexes the built-in agents' },
    );
  }, 180_000);

  afterAll(async () => {
    await external?.close();
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it('dead-letters the flood, stays healthy, and completes a goal submitted after it', async () => {
    const { body: before } = await call<{ total: number }>('GET', '/v1/dead-letters');
    const js = jetstream(external);
    const floodStartedAt = Date.now();
    await Promise.all(
      Array.from({ length: POISON_PER_STREAM }, (_, index) => [
        // For chat's `chat-scheduler-task-updated-v1`.
        js.publish(TaskUpdatedV1.subject, JSON.stringify(poisonTaskUpdate(index))),
        // For the scheduler's `scheduler-chat-message-posted-v1`: not even JSON.
        js.publish(MessagePostedV1.subject, `{"goalId": "${index}", "message": `),
      ]).flat(),
    );

    const { status, body: submitted } = await call<{ id: string }>('POST', '/v1/goals', {
      goal: 'Write a two-line note on why events need dead letters.',
      members: ['writer'],
    });
    expect(status).toBe(202);
    const goal = await expectEventually(
      async () => {
        const { body } = await call<GoalV1>('GET', `/v1/goals/${submitted.id}`);
        if (body.status !== 'completed') throw new Error(`the goal is ${body.status}`);
        return body;
      },
      { timeoutMs: GOAL_DEADLINE_MS, intervalMs: 250, message: 'the goal completes after the flood' },
    );
    expect(goal.conclusion?.length).toBeGreaterThan(0);

    const listed = await expectEventually(
      async () => {
        const { body } = await call<{ total: number; unavailable: unknown[] }>('GET', '/v1/dead-letters');
        if (body.total < before.total + 2 * POISON_PER_STREAM) throw new Error(`${body.total} dead letters so far`);
        return body;
      },
      { timeoutMs: 60_000 },
    );
    expect(listed.total).toBe(before.total + 2 * POISON_PER_STREAM);
    expect(listed.unavailable).toEqual([]);
    const { body: chatLetters } = await call<{ items: Array<{ consumer: string; reason: string; error: string }> }>(
      'GET',
      '/v1/dead-letters?service=chat&limit=1',
    );
    expect(chatLetters.items[0]).toMatchObject({
      consumer: 'chat-scheduler-task-updated-v1',
      reason: 'invalid_payload',
    });
    expect(chatLetters.items[0].error).toMatch(/NUL/);

    const health = await expectEventually(async () => {
      const answer = await call<PlatformHealth>('GET', '/health');
      if (answer.status !== 200) throw new Error(`health is ${answer.status}`);
      return answer.body;
    });
    const consumers = Object.values(health.services).flatMap((service) => service.consumers ?? []);
    expect(consumers.filter((consumer) => consumer.stuck)).toEqual([]);
    expect(consumers.find((consumer) => consumer.name === 'chat-scheduler-task-updated-v1')).toMatchObject({
      deadLetters: POISON_PER_STREAM,
      ackPending: 0,
    });
    expect(consumers.find((consumer) => consumer.name === 'scheduler-chat-message-posted-v1')).toMatchObject({
      deadLetters: POISON_PER_STREAM,
    });
    console.log(
      `${2 * POISON_PER_STREAM} poison events: the goal after them completed and all were dead letters ` +
        `${Date.now() - floodStartedAt} ms after the flood began`,
    );
  }, 240_000);
});
