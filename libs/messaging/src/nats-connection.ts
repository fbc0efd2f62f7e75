import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Injection token of the service's shared NATS connection (used by clients, publishers and consumers). */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

export async function connectNats(servers: string[], name: string): Promise<NatsConnection> {
  return connect({
    servers,
    name,
    // A service keeps trying for as long as it runs: a broker restart must not kill it.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
}
