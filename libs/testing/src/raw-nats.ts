import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * What an external agent has: a bare NATS client and JSON. Tests use it to prove the public protocol works
 * without any of our libraries.
 */
export async function rawRequest(
  connection: NatsConnection,
  subject: string,
  body: unknown,
  timeoutMs = 5000,
): Promise<{
  ok: boolean;
  data?: unknown;
  error?: { code: string; message: string; details?: unknown; retryable: boolean };
}> {
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const reply = await connection.request(subject, payload, { timeout: timeoutMs });
  return JSON.parse(new TextDecoder().decode(reply.data)) as never;
}

export function connectRaw(url: string): Promise<NatsConnection> {
  return connect({ servers: url, name: 'test-external-agent' });
}
