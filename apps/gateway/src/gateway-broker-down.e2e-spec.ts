import type { INestApplication } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { NATS_CONNECTION } from '@ioa/messaging';
import { createGatewayApp } from './gateway.app.js';

const REQUEST_TIMEOUT_MS = 500;
const SLACK_MS = 1500;

/**
 * The broker itself goes away under a running gateway. Requests then cannot even reach a service: they must still
 * end in a 503 within the request timeout, and health must say that NATS is down. (No database is needed: the
 * gateway has none.)
 */
describe('the gateway when NATS goes down', () => {
  let nats: EmbeddedNats;
  let gateway: INestApplication;
  let baseUrl: string;
  const previous = { NATS_URL: process.env.NATS_URL, REQUEST_TIMEOUT_MS: process.env.REQUEST_TIMEOUT_MS };

  beforeAll(async () => {
    nats = await startNatsServer();
    process.env.NATS_URL = nats.url;
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
    const response = await fetch(`${baseUrl}/v1/agents`);
    const elapsedMs = Date.now() - startedAt;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      statusCode: 503,
      message: expect.stringMatching(/^The registry service/),
    });
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });
});
