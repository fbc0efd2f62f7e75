import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { GoalV1 } from '@ioa/contracts';
import { adminAuthHeaders, expectEventually, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app.js';
import { SseClient } from '../../apps/gateway/src/goals/testing/sse-client.js';
import { GOAL_SERVICES, startServices } from '../support/platform-services.js';

const GOAL_DEADLINE_MS = 120_000;

/**
 * The whole platform with authentication on, as `npm start` runs it: every service (and the gateway) on its own
 * least-privilege NATS user from NATS_CREDENTIALS_DIR, on a broker that refuses anonymous connections. A goal goes
 * from REST to its conclusion, so every subject, stream and consumer the platform uses is granted; a missing grant
 * shows up in the services' logs as a "Permissions Violation" and the goal does not complete.
 */
describe('the platform on least-privilege NATS users', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;

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
    infrastructure = await startTestInfrastructure({ auth: true });
    infrastructure.applyEnvironment({ AGENT_HOST_HEARTBEAT_MS: '1000' });
    services.push(...(await startServices(GOAL_SERVICES, ['error', 'warn'])));
    gateway = await createGatewayApp({ logger: ['error', 'warn'] });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    await expectEventually(
      async () => {
        const { body } = await call<{ items?: Array<{ name: string }> }>(
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
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it(
    'runs a goal end to end with every service on its own user',
    async () => {
      expect(process.env.NATS_CREDENTIALS_DIR).toBe(infrastructure.trust?.credsDir);
      const feed = await SseClient.open(`${baseUrl}/v1/feed`, adminAuthHeaders());
      expect(feed.status).toBe(200);
      const { status, body: submitted } = await call<{ id: string }>('POST', '/v1/goals', {
        goal: 'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.',
      });
      expect(status).toBe(202);
      // The network feed reads the registry's and scheduler's streams with the gateway's own ordered consumers.
      await feed.waitFor(
        (events) =>
          events.some((event) => event.event === 'goal.submitted' && JSON.stringify(event.data).includes(submitted.id)),
        { timeoutMs: 30_000, message: 'the feed shows the goal' },
      );
      const goal = await expectEventually(
        async () => {
          const { body } = await call<GoalV1>('GET', `/v1/goals/${submitted.id}`);
          return ['completed', 'failed', 'canceled'].includes(body.status) ? body : undefined;
        },
        { timeoutMs: GOAL_DEADLINE_MS, intervalMs: 250, message: 'the goal ends' },
      );
      expect(goal?.status).toBe('completed');
      expect(goal?.conclusion).toContain('42');
      // Nothing the platform did on the way was refused by the broker.
      expect(infrastructure.permissionViolations()).toEqual([]);
      await feed.close();
    },
    GOAL_DEADLINE_MS + 30_000,
  );
});
