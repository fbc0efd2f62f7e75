import type { INestApplication } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  GetAgentV1,
  HEADER_PRINCIPAL,
  HEADER_TRACEPARENT,
  ListAgentsV1,
  RegistryHealthV1,
  SearchAgentsV1,
} from '@ioa/contracts';
import { adminAuthHeaders, connectRaw, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { createGatewayApp } from './gateway.app.js';

/** Small, so that "a service does not answer" costs this much and no more. */
const REQUEST_TIMEOUT_MS = 500;
/** Slack above the timeout for a loaded CI machine; a hang would blow far past it. */
const SLACK_MS = 4000;

interface HttpResult {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
  elapsedMs: number;
}

/**
 * The gateway alone, with no registry or discovery behind it: every path that does not need a working service
 * (validation, routing, documentation) and every way a service can fail to answer.
 */
describe('the gateway without services behind it', () => {
  let infrastructure: TestInfrastructure;
  let gateway: INestApplication;
  let baseUrl: string;
  let external: NatsConnection;

  async function get(path: string): Promise<HttpResult> {
    const startedAt = Date.now();
    const response = await fetch(`${baseUrl}${path}`, { headers: adminAuthHeaders() });
    const text = await response.text();
    return {
      status: response.status,
      body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : { text }) as Record<
        string,
        unknown
      >,
      headers: response.headers,
      elapsedMs: Date.now() - startedAt,
    };
  }

  /** A subscriber that takes requests and never replies: a service that hangs. */
  function silentService(subject: string): Subscription {
    return external.subscribe(subject, { queue: 'silent' });
  }

  /** A stand-in that answers with a fixed raw reply, to see how the gateway treats replies no real service sends. */
  function answeringService(subject: string, reply: string): Subscription {
    return external.subscribe(subject, {
      callback: (_error, message) => {
        message.respond(reply);
      },
    });
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    external = await connectRaw(infrastructure.natsUrl);
  });

  afterAll(async () => {
    await external?.close();
    await gateway?.close();
    await infrastructure?.stop();
  });

  describe('rejects invalid requests with 400 naming the field, before asking any service', () => {
    /** Listens where the gateway would ask registry and discovery, and counts what arrives there. */
    let spies: Subscription[] = [];
    let requestsSeenByServices = 0;

    beforeAll(async () => {
      spies = [ListAgentsV1.subject, SearchAgentsV1.subject].map((subject) =>
        external.subscribe(subject, {
          callback: () => {
            requestsSeenByServices += 1;
          },
        }),
      );
      await external.flush();
    });

    afterAll(() => {
      for (const spy of spies) spy.unsubscribe();
    });

    it.each([
      ['/v1/agents?limit=abc', 'limit', 'limit must be an integer number'],
      ['/v1/agents?limit=0', 'limit', 'limit must not be less than 1'],
      ['/v1/agents?offset=-1', 'offset', 'offset must not be less than 0'],
      ['/v1/agents?online=maybe', 'online', 'online must be true or false'],
      ['/v1/agents?q=translator&topK=0', 'topK', 'topK must not be less than 1'],
      ['/v1/agents?q=translator&minScore=2', 'minScore', 'minScore must not be greater than 1'],
      ['/v1/agents?q=', 'q', 'q should not be empty'],
      ['/v1/agents?topK=5', 'topK', 'topK refines a semantic search and needs q'],
      ['/v1/agents?tags=legal', 'tags', 'tags refines a semantic search and needs q'],
      ['/v1/agents?q=translator&limit=5', 'limit', 'limit pages the plain list'],
    ])('GET %s', async (path, property, message) => {
      const { status, body } = await get(path);
      expect(status).toBe(400);
      expect(body).toMatchObject({ statusCode: 400, error: 'VALIDATION_FAILED' });
      expect(body.message).toContain(message);
      expect(body.details).toEqual([expect.objectContaining({ property })]);
      // Answered by the gateway itself: nothing reached the subjects a service listens on.
      await external.flush();
      expect(requestsSeenByServices).toBe(0);
    });

    it('rejects an agent id that is not a UUID', async () => {
      const { status, body } = await get('/v1/agents/not-a-uuid');
      expect(status).toBe(400);
      expect(body).toMatchObject({
        error: 'VALIDATION_FAILED',
        message: 'Invalid request: id must be a UUID',
      });
      expect(body.details).toEqual([{ property: 'id', constraints: ['id must be a UUID'] }]);
    });
  });

  describe('answers 503 with a message, never hangs, when a service is missing', () => {
    it('lists agents: no registry is running', async () => {
      const { status, body, headers, elapsedMs } = await get('/v1/agents');
      expect(status).toBe(503);
      expect(body).toMatchObject({ statusCode: 503, error: 'UNAVAILABLE' });
      expect(body.message).toMatch(/^The registry service is not available/);
      expect(headers.get('retry-after')).toBe('1');
      // NATS says at once that nobody subscribes: no need to wait for the timeout.
      expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    });

    it('searches agents: no discovery is running', async () => {
      const { status, body } = await get('/v1/agents?q=translate%20a%20contract&online=false&tags=legal,fr&topK=3');
      expect(status).toBe(503);
      expect(body.message).toMatch(/^The discovery service is not available/);
    });

    it('gets an agent: no registry is running', async () => {
      const { status, body } = await get('/v1/agents/7f1c3b9e-0d4a-4f7e-9a52-3c0b8e5d2f11');
      expect(status).toBe(503);
      expect(body.error).toBe('UNAVAILABLE');
    });
  });

  describe('answers 503 within the request timeout when a service is subscribed but silent', () => {
    let silent: Subscription[] = [];
    afterEach(() => {
      silent.forEach((subscription) => subscription.unsubscribe());
      silent = [];
    });

    it.each([
      ['/v1/agents', ListAgentsV1.subject],
      ['/v1/agents/7f1c3b9e-0d4a-4f7e-9a52-3c0b8e5d2f11', GetAgentV1.subject],
    ])('GET %s', async (path, subject) => {
      silent.push(silentService(subject));
      await external.flush();
      const { status, body, elapsedMs } = await get(path);
      expect(status).toBe(503);
      expect(body).toMatchObject({
        error: 'TIMEOUT',
        message: `The registry service did not answer in time (${REQUEST_TIMEOUT_MS} ms); try again shortly`,
        details: { subject, timeoutMs: REQUEST_TIMEOUT_MS },
      });
      expect(elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    });

    it('reports health as degraded (503) within the timeout while the registry hangs', async () => {
      silent.push(silentService(RegistryHealthV1.subject));
      await external.flush();
      const { status, body, elapsedMs } = await get('/health');
      expect(status).toBe(503);
      expect(body).toMatchObject({
        status: 'degraded',
        services: { registry: { status: 'down', reason: expect.stringMatching(/^TIMEOUT/) } },
      });
      expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    });
  });

  describe("translates a service's failure replies", () => {
    let standIns: Subscription[] = [];
    afterEach(() => {
      standIns.forEach((subscription) => subscription.unsubscribe());
      standIns = [];
    });

    it('a service bug (INTERNAL) is 502, not the gateway failing', async () => {
      standIns.push(
        answeringService(
          ListAgentsV1.subject,
          JSON.stringify({
            ok: false,
            error: { code: 'INTERNAL', message: 'Internal error', retryable: true },
          }),
        ),
      );
      await external.flush();
      const { status, body } = await get('/v1/agents');
      expect(status).toBe(502);
      expect(body).toEqual({ statusCode: 502, error: 'INTERNAL', message: 'Internal error' });
    });

    it("sends the contract request with the caller's trace continued and its principal, and returns the reply's data", async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      let received: string | undefined;
      let principal: string | undefined;
      let request: unknown;
      standIns.push(
        external.subscribe(ListAgentsV1.subject, {
          callback: (_error, message) => {
            received = message.headers?.get(HEADER_TRACEPARENT);
            principal = message.headers?.get(HEADER_PRINCIPAL);
            request = message.json();
            message.respond(JSON.stringify({ ok: true, data: { items: [], total: 0 } }));
          },
        }),
      );
      await external.flush();
      const response = await fetch(`${baseUrl}/v1/agents?online=true&limit=5`, {
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, ...adminAuthHeaders() },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ items: [], total: 0, limit: 5, offset: 0 });
      expect(received).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(received).not.toContain('00f067aa0ba902b7');
      // The authenticated caller (the test stack's admin key) travels as Ioa-Principal for the service to scope by.
      expect(JSON.parse(principal ?? 'null')).toEqual({ accountId: 'local-admin', role: 'admin' });
      expect(request).toEqual({ status: 'online', limit: 5, offset: 0 });
    });

    it('a reply that is not a contract envelope is 502', async () => {
      standIns.push(answeringService(ListAgentsV1.subject, '<html>oops</html>'));
      await external.flush();
      const { status, body } = await get('/v1/agents');
      expect(status).toBe(502);
      expect(body.error).toBe('INTERNAL');
    });
  });

  it('reports health as degraded with 503 when no service answers, NATS itself being up', async () => {
    const { status, body, elapsedMs } = await get('/health');
    expect(status).toBe(503);
    expect(body).toEqual({
      status: 'degraded',
      ready: false,
      nats: 'up',
      database: 'unknown',
      services: Object.fromEntries(
        ['registry', 'discovery', 'chat', 'scheduler', 'agent-host', 'adapters'].map((name) => [
          name,
          { status: 'down', reason: expect.stringMatching(/^UNAVAILABLE/) },
        ]),
      ),
    });
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    // Not ready either: without the registry and discovery the API cannot serve.
    await expect(get('/health/ready')).resolves.toMatchObject({ status: 503, body: { ready: false } });
  });

  it('answers a body that is not JSON with 400 MALFORMED_PAYLOAD, as NATS does', async () => {
    const response = await fetch(`${baseUrl}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: '{"goal": nope',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ statusCode: 400, error: 'MALFORMED_PAYLOAD' });
  });

  it('answers an unknown route with a 404 in the error shape', async () => {
    const { status, body } = await get('/v1/nothing-here');
    expect(status).toBe(404);
    expect(body).toEqual({ statusCode: 404, error: 'NOT_FOUND', message: 'Cannot GET /v1/nothing-here' });
  });

  it('serves the OpenAPI document at /docs-json, listing the routes and the contract schemas', async () => {
    const { status, body } = await get('/docs-json');
    expect(status).toBe(200);
    expect(body.openapi).toMatch(/^3\./);
    const paths = body.paths as Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/v1/agents', '/v1/agents/{id}', '/health']));
    expect(paths['/v1/agents'].get.parameters?.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['q', 'online', 'limit', 'offset', 'topK', 'minScore', 'tags']),
    );
    expect(paths['/v1/agents/{id}'].get.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path' })]);
    const schemas = (body.components as { schemas: Record<string, { properties?: Record<string, unknown> }> }).schemas;
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'AgentCardV1',
        'AgentSkillV1',
        'AgentListItem',
        'AgentListResponseDto',
        'HttpErrorDto',
        'PlatformHealthDto',
      ]),
    );
    expect(schemas.AgentCardV1.properties?.skills).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/AgentSkillV1' },
      maxItems: 50,
      minItems: 1,
    });
  });

  it('serves the OpenAPI UI at /docs', async () => {
    const { status, body } = await get('/docs');
    expect(status).toBe(200);
    expect(body.text).toContain('swagger-ui');
  });
});
