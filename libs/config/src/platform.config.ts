import { registerAs } from '@nestjs/config';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/ioa';

export const natsConfig = registerAs('nats', () => ({
  servers: (process.env.NATS_URL ?? DEFAULT_NATS_URL).split(','),
  /** How long a request waits for its reply before it fails with TIMEOUT. */
  requestTimeoutMs: Number(process.env.REQUEST_TIMEOUT_MS ?? 5000),
}));

export const databaseConfig = registerAs('database', () => ({
  url: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
}));
