import type { INestApplication } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { startEmbeddedPostgres, startNatsServer, type EmbeddedNats, type EmbeddedPostgres } from '@ioa/embedded';
import { NATS_CONNECTION } from '@ioa/messaging';
import { adminAuthHeaders, TEST_ADMIN_API_KEY } from '@ioa/testing';
import { createGatewayApp } from './gateway.app.js';

const REQUEST_TIMEOUT_MS = 500;
const SLACK_MS = 4000;

/**
 * The broker itself goes away under a running gateway. Requests then cannot even reach a service: they must still
 * end in a 503 within the request timeout, and health must say that NATS is down. The database stays up: it holds
 * the API keys the requests authenticate with.
 */
describe('the gateway when NATS goes down', () => {
  let nats: EmbeddedNats;
  let database: EmbeddedPostgres;
  let gateway: INestApplication;
  let baseUrl: string;
  const previous = {
    NATS_URL: process.env.NATS_URL,
    REQUEST_TIMEOUT_MS: process.env.REQUEST_TIMEOUT_MS,
    DATABASE_URL: process.env.DATABASE_URL,
    IOA_ADMIN_API_KEY: process.env.IOA_ADMIN_API_KEY,
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    database = await startEmbeddedPostgres();
    process.env.NATS_URL = nats.url;
    process.env.DATABASE_URL = database.url;
    process.env.IOA_ADMIN_API_KEY = TEST_ADMIN_API_KEY;
    process.env.REQUEST_TIMEOUT_MS = String(REQUEST_TIMEOUT_MS);
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    await nats.stop();
  });

  afterAll(async () => {
    const connection = gateway?.get<NatsConnection>(NATS_CONNECTION);
    await gateway?.close();
    // MessagingModule drains its connection on shutdown, and a drain fails while the broker is unreachable, which
    // leaves the client reconnecting forever; close it so the test process can exit.
    if (connection && !connection.isClosed()) await connection.close();
    await database?.stop();
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('reports NATS down on /health with 503, within the timeout', async () => {
    const startedAt = Date.now();
    const response = await fetch(`${baseUrl}/health`);
    const elapsedMs = Date.now() - startedAt;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      status: 'degraded',
      nats: 'down',
      database: 'unknown',
      services: { registry: { status: 'down' }, discovery: { status: 'down' } },
    });
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('answers an API request with 503 within the timeout instead of hanging', async () => {
    const startedAt = Date.now();
    const response = await fetch(`${baseUrl}/v1/agents`, { headers: adminAuthHeaders() });
    const elapsedMs = Date.now() - startedAt;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      statusCode: 503,
      message: expect.stringMatching(/^The registry service/),
    });
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });
});
