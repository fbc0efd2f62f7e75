import { registerAs } from '@nestjs/config';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/ioa';

export const natsConfig = registerAs('nats', () => ({
  servers: (process.env.NATS_URL ?? DEFAULT_NATS_URL).split(','),
  /** Where `<service>.creds` is read from; undefined connects without credentials (a test broker without auth). */
  credentialsDir: process.env.NATS_CREDENTIALS_DIR || undefined,
  /** How long a request waits for its reply before it fails with TIMEOUT. */
  requestTimeoutMs: Number(process.env.REQUEST_TIMEOUT_MS ?? 5000),
  /** How stream consumers retry a failing handler before the event becomes a dead letter (see `EventBus`). */
  events: eventDeliveryFromEnvironment(),
}));

/** Delays between the deliveries of an event whose handler keeps failing; the last one repeats if needed. */
export const DEFAULT_EVENT_RETRY_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 300_000];

function eventDeliveryFromEnvironment() {
  const backoffMs = process.env.EVENT_RETRY_BACKOFF_MS
    ? process.env.EVENT_RETRY_BACKOFF_MS.split(',').map(Number)
    : DEFAULT_EVENT_RETRY_BACKOFF_MS;
  return {
    backoffMs,
    /** Deliveries before it is dead-lettered: JetStream requires more deliveries than backoff steps. */
    maxDeliveries: Number(process.env.EVENT_MAX_DELIVERIES ?? backoffMs.length + 1),
    /** A consumer with waiting events and no delivery for this long reports itself stuck in health. */
    stuckAfterMs: Number(process.env.EVENT_STUCK_AFTER_MS ?? 60_000),
  };
}

export const databaseConfig = registerAs('database', () => ({
  url: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
}));
