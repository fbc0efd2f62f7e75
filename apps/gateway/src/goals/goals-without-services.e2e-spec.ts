import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { GetGoalV1, HEADER_IDEMPOTENCY_KEY, HEADER_TRACEPARENT, SubmitGoalV1 } from '@ioa/contracts';
import { adminAuthHeaders, connectRaw, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { createGatewayApp } from '../gateway.app.js';
import { SseClient } from './testing/sse-client.js';

/** Small, so that "the scheduler does not answer" costs this much and no more. */
const REQUEST_TIMEOUT_MS = 500;
const SLACK_MS = 4000;

interface HttpResult {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
  elapsedMs: number;
}

/**
 * The goal and group routes with no scheduler or chat behind the gateway: validation (answered by the gateway
 * itself, before any service is asked), the 503s of missing services, what the gateway forwards, and the
 * OpenAPI document.
 */
describe('the goal and group routes without services behind them', () => {
  let infrastructure: TestInfrastructure;
  let gateway: INestApplication;
  let baseUrl: string;
  let external: NatsConnection;

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const startedAt = Date.now();
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...adminAuthHeaders(), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    const result: HttpResult = {
      status: response.status,
      body: (text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : { text }) as Record<
        string,
        unknown
      >,
      headers: response.headers,
      elapsedMs: Date.now() - startedAt,
    };
    return result;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    external = await connectRaw(infrastructure.natsUrl);
  }, 180_000);

  afterAll(async () => {
    await external?.close();
    await gateway?.close();
    await infrastructure?.stop();
  });

  describe('rejects an invalid goal with 400 naming the field, without asking the scheduler', () => {
    const nine = Array.from({ length: 9 }, (_, index) => `agent-${index}`);
    it.each([
      ['an empty goal', { goal: '' }, 'goal', 'goal should not be empty'],
      ['no goal', { members: ['writer'] }, 'goal', 'goal must be a string'],
      ['a goal that is too long', { goal: 'x'.repeat(8001) }, 'goal', 'goal must be shorter than or equal to 8000'],
      ['maxTurns below 2', { goal: 'g', maxTurns: 1 }, 'maxTurns', 'maxTurns must not be less than 2'],
      ['maxTurns above 200', { goal: 'g', maxTurns: 201 }, 'maxTurns', 'maxTurns must not be greater than 200'],
      ['maxTurns not a number', { goal: 'g', maxTurns: 'many' }, 'maxTurns', 'maxTurns must be an integer'],
      ['maxDepth above 5', { goal: 'g', maxDepth: 6 }, 'maxDepth', 'maxDepth must not be greater than 5'],
      ['members not a list', { goal: 'g', members: 'writer' }, 'members', 'members must be an array'],
      [
        'an empty member name',
        { goal: 'g', members: ['writer', ''] },
        'members',
        'each value in members should not be empty',
      ],
      ['more than 8 members', { goal: 'g', members: nine }, 'members', 'members must contain no more than 8 elements'],
      [
        'a token budget of 0',
        { goal: 'g', budget: { tokens: 0 } },
        'budget.tokens',
        'budget.tokens must not be less than 1',
      ],
      [
        'a fractional token budget',
        { goal: 'g', budget: { tokens: 1.5 } },
        'budget.tokens',
        'budget.tokens must be an integer',
      ],
      [
        'a time budget over a day',
        { goal: 'g', budget: { seconds: 86401 } },
        'budget.seconds',
        'budget.seconds must not be greater than 86400',
      ],
      ['a budget that is not an object', { goal: 'g', budget: 'lots' }, 'budget', 'budget must be an object'],
    ])('POST /v1/goals with %s', async (_case, body, property, message) => {
      // No scheduler is running: a 400 (not a 503) shows the gateway answered by itself.
      const { status, body: error } = await call('POST', '/v1/goals', body);
      expect(status).toBe(400);
      expect(error).toMatchObject({ statusCode: 400, error: 'VALIDATION_FAILED' });
      expect(error.message).toContain(message);
      expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ property })]));
    });

    it('rejects a body that is not JSON with MALFORMED_PAYLOAD', async () => {
      const { status, body } = await call('POST', '/v1/goals', '{"goal": ');
      expect(status).toBe(400);
      expect(body.error).toBe('MALFORMED_PAYLOAD');
    });

    it('rejects an Idempotency-Key that is not a plain token', async () => {
      const { status, body } = await call(
        'POST',
        '/v1/goals',
        { goal: 'g' },
        { [HEADER_IDEMPOTENCY_KEY]: 'two words' },
      );
      expect(status).toBe(400);
      expect(body.details).toEqual([expect.objectContaining({ property: 'Idempotency-Key' })]);
    });
  });

  describe('rejects invalid ids and parameters on the other routes with 400', () => {
    const goalId = randomUUID();
    it.each([
      ['GET', '/v1/goals/not-a-uuid', undefined, 'id must be a UUID'],
      ['GET', '/v1/goals/not-a-uuid/events', undefined, 'id must be a UUID'],
      ['GET', `/v1/goals/${goalId}/events?after=-1`, undefined, 'after must not be less than 0'],
      ['GET', `/v1/goals/${goalId}/events?follow=maybe`, undefined, 'follow must be true or false'],
      ['POST', '/v1/goals/not-a-uuid/messages', { content: 'hi' }, 'id must be a UUID'],
      ['POST', `/v1/goals/${goalId}/messages`, { content: '' }, 'content should not be empty'],
      ['POST', `/v1/goals/${goalId}/messages`, {}, 'content must be a string'],
      ['POST', `/v1/goals/${goalId}/cancel`, { reason: '' }, 'reason should not be empty'],
      ['GET', '/v1/groups/not-a-uuid', undefined, 'id must be a UUID'],
      ['GET', `/v1/groups/${goalId}/messages?limit=0`, undefined, 'limit must not be less than 1'],
      ['GET', `/v1/groups/${goalId}/messages?limit=501`, undefined, 'limit must not be greater than 500'],
      ['GET', `/v1/groups/${goalId}/messages?afterSeq=x`, undefined, 'afterSeq must be an integer'],
    ])('%s %s', async (method, path, body, message) => {
      const { status, body: error } = await call(method, path, body);
      expect(status).toBe(400);
      expect(error).toMatchObject({ error: 'VALIDATION_FAILED' });
      expect(error.message).toContain(message);
    });

    it('rejects a Last-Event-ID that is not one of our ids, before the stream starts', async () => {
      const client = await SseClient.open(`${baseUrl}/v1/goals/${goalId}/events`, { 'last-event-id': 'abc' });
      expect(client.status).toBe(400);
      expect(client.json).toMatchObject({ error: 'VALIDATION_FAILED' });
      expect(client.json.details).toEqual([expect.objectContaining({ property: 'Last-Event-ID' })]);
    });
  });

  describe('answers 503 (JSON, Retry-After), never a hung request or a half-open stream, when a service is missing', () => {
    const goalId = randomUUID();
    it.each([
      ['POST', '/v1/goals', 'scheduler', { goal: 'Write a haiku' }],
      ['GET', `/v1/goals/${goalId}`, 'scheduler', undefined],
      ['POST', `/v1/goals/${goalId}/messages`, 'scheduler', { content: 'hello' }],
      ['POST', `/v1/goals/${goalId}/cancel`, 'scheduler', undefined],
      ['GET', `/v1/groups/${goalId}`, 'chat', undefined],
      ['GET', `/v1/groups/${goalId}/messages`, 'chat', undefined],
    ])('%s %s: no %s is running', async (method, path, service, body) => {
      const { status, body: error, headers, elapsedMs } = await call(method, path, body);
      expect(status).toBe(503);
      expect(error).toMatchObject({ statusCode: 503, error: 'UNAVAILABLE' });
      expect(error.message).toMatch(new RegExp(`^The ${service} service is not available`));
      expect(headers.get('retry-after')).toBe('1');
      expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    });

    it('GET /v1/goals/:id/events: 503 before the stream starts', async () => {
      const client = await SseClient.open(`${baseUrl}/v1/goals/${goalId}/events`);
      expect(client.status).toBe(503);
      expect(client.headers.get('content-type')).toContain('application/json');
      expect(client.json).toMatchObject({ error: 'UNAVAILABLE' });
      expect(client.json.message).toMatch(/^The scheduler service is not available/);
    });

    it('GET /v1/goals/:id/events: 503 when the scheduler is silent', async () => {
      const silent = external.subscribe(GetGoalV1.subject, { queue: 'silent' });
      await external.flush(); // the server has the interest before the gateway asks
      try {
        const client = await SseClient.open(`${baseUrl}/v1/goals/${goalId}/events`);
        expect(client.status).toBe(503);
        expect(client.json).toMatchObject({ error: 'TIMEOUT' });
      } finally {
        silent.unsubscribe();
      }
    });
  });

  it('forwards Idempotency-Key and the trace to the scheduler, and answers 202 with the goal and its Location', async () => {
    const seen: Array<{ key?: string; traceparent?: string; body: unknown }> = [];
    const goalId = randomUUID();
    const scheduler = external.subscribe(SubmitGoalV1.subject, {
      callback: (_error, message) => {
        seen.push({
          key: message.headers?.get(HEADER_IDEMPOTENCY_KEY),
          traceparent: message.headers?.get(HEADER_TRACEPARENT),
          body: message.json(),
        });
        message.respond(JSON.stringify({ ok: true, data: { id: goalId, status: 'submitted' } }));
      },
    });
    // Without the flush the gateway's request can reach the server before this subscription does (a flaky 503).
    await external.flush();
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const { status, body, headers } = await call(
        'POST',
        '/v1/goals',
        { goal: 'Write a haiku', members: ['writer'], budget: { tokens: 500 }, parentTaskId: randomUUID() },
        { [HEADER_IDEMPOTENCY_KEY]: 'order-7f3a', [HEADER_TRACEPARENT]: `00-${traceId}-00f067aa0ba902b7-01` },
      );
      expect(status).toBe(202);
      expect(body).toEqual({ id: goalId, status: 'submitted' });
      expect(headers.get('location')).toBe(`/v1/goals/${goalId}`);
      expect(seen).toHaveLength(1);
      expect(seen[0].key).toBe('order-7f3a');
      expect(seen[0].traceparent).toContain(traceId);
      // Defaults of the contract are filled in; `parentTaskId` is not for HTTP clients and is stripped.
      expect(seen[0].body).toEqual({
        goal: 'Write a haiku',
        members: ['writer'],
        maxTurns: 12,
        maxDepth: 1,
        budget: { tokens: 500 },
      });
    } finally {
      scheduler.unsubscribe();
    }
  });

  it('documents the goal and group routes in the OpenAPI document', async () => {
    const { status, body } = await call('GET', '/docs-json');
    expect(status).toBe(200);
    const paths = body.paths as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/v1/goals',
        '/v1/goals/{id}',
        '/v1/goals/{id}/events',
        '/v1/goals/{id}/messages',
        '/v1/goals/{id}/cancel',
        '/v1/groups/{id}',
        '/v1/groups/{id}/messages',
      ]),
    );
    const events = paths['/v1/goals/{id}/events'].get as {
      parameters: Array<{ name: string; in: string }>;
      responses: Record<string, { content?: Record<string, { schema: { properties: Record<string, unknown> } }> }>;
    };
    expect(events.parameters.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(
      expect.arrayContaining(['path:id', 'query:after', 'query:follow', 'header:Last-Event-ID']),
    );
    expect(Object.keys(events.responses['200'].content ?? {})).toEqual(['text/event-stream']);
    const goal = (paths['/v1/goals/{id}'].get as typeof events).responses['200'].content?.['application/json'];
    // The contract's classes written out in place: a task of the goal is described, not a dangling reference.
    expect(goal?.schema.properties.tasks).toMatchObject({
      type: 'array',
      items: { type: 'object', properties: expect.objectContaining({ state: expect.anything() }) },
    });
    const submit = paths['/v1/goals'].post as { responses: Record<string, unknown> };
    expect(Object.keys(submit.responses)).toEqual(expect.arrayContaining(['202', '400', '503']));
  });
});
