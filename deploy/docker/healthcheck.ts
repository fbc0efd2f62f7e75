import 'reflect-metadata';
import { connect } from '@nats-io/transport-node';
import { ALL_CONTRACTS, HealthV1Request, type HealthV1Response, type ReplyEnvelope } from '@ioa/contracts';
import { natsIdentityOptions } from '@ioa/messaging';

/**
 * Container health check (Docker HEALTHCHECK, compose, Kubernetes exec probes): exits 0 when the service named
 * by $SERVICE is healthy, 1 otherwise, with one line saying why.
 *
 * - gateway: GET /health on its own port (it reports NATS and every service behind it).
 * - other services: a request on its `ioa.<service>.health.v1` subject. NATS delivers it to one replica of the
 *   queue group, not necessarily this container, so this proves "the service answers", not "this replica
 *   answers": use it for readiness, not for liveness (see k8s/base).
 */
const service = process.env.SERVICE ?? '';
const timeoutMs = Number(process.env.HEALTHCHECK_TIMEOUT_MS ?? 3000);

async function problem(): Promise<string | undefined> {
  if (service === 'gateway') {
    const port = process.env.GATEWAY_PORT ?? '8080';
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return response.ok ? undefined : `GET /health answered ${response.status}`;
  }
  const contract = ALL_CONTRACTS.find(
    (candidate) => candidate.kind === 'request' && candidate.owner === service && candidate.request === HealthV1Request,
  );
  if (!contract) return `no health subject is declared for SERVICE="${service}"`;
  const connection = await connect({
    servers: (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(','),
    name: `${service}-healthcheck`,
    timeout: timeoutMs,
    // As the service itself (its own .creds and inbox prefix): the broker refuses anonymous connections.
    ...natsIdentityOptions(process.env.NATS_CREDENTIALS_DIR || undefined, service),
  });
  try {
    const reply = await connection.request(contract.subject, '{}', { timeout: timeoutMs });
    const body = JSON.parse(new TextDecoder().decode(reply.data)) as ReplyEnvelope<HealthV1Response>;
    if (!body.ok) return `${contract.subject}: ${body.error.code} ${body.error.message}`;
    return body.data.status === 'ok' ? undefined : `${contract.subject}: ${JSON.stringify(body.data)}`;
  } finally {
    await connection.close();
  }
}

try {
  const reason = await problem();
  console.log(reason ? `unhealthy: ${reason}` : `${service} healthy`);
  process.exit(reason ? 1 : 0);
} catch (error) {
  console.log(`unhealthy: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
