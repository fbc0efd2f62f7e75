import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres, startNatsServer, type NatsServerOptions } from '@ioa/embedded';
import { TEST_ADMIN_API_KEY } from './test-credentials.js';

export interface TestInfrastructure {
  natsUrl: string;
  databaseUrl: string;
  /** Points NATS_URL / DATABASE_URL (and any extra variables) at this infrastructure for services booted next. */
  applyEnvironment(extra?: Record<string, string>): void;
  stop(): Promise<void>;
}

/**
 * A real nats-server (JetStream on) and a real, empty database for one test file. With TEST_DATABASE_URL set
 * (CI does this for native PostgreSQL 15 + pgvector) each test file gets a fresh database on that server;
 * otherwise an embedded PGlite with pgvector. `nats` sets where the broker listens (loopback by default).
 */
export async function startTestInfrastructure(options: { nats?: NatsServerOptions } = {}): Promise<TestInfrastructure> {
  const nats = await startNatsServer(options.nats);
  const database = process.env.TEST_DATABASE_URL
    ? await createFreshDatabase(process.env.TEST_DATABASE_URL)
    : await startEmbeddedPostgres();
  const touched = new Map<string, string | undefined>();
  return {
    natsUrl: nats.url,
    databaseUrl: database.url,
    applyEnvironment(extra = {}) {
      const variables = {
        NATS_URL: nats.url,
        DATABASE_URL: database.url,
        IOA_ADMIN_API_KEY: TEST_ADMIN_API_KEY,
        ...extra,
      };
      for (const [key, value] of Object.entries(variables)) {
        if (!touched.has(key)) touched.set(key, process.env[key]);
        process.env[key] = value;
      }
    },
    async stop() {
      for (const [key, value] of touched) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await Promise.allSettled([nats.stop(), database.stop()]);
    },
  };
}

async function createFreshDatabase(serverUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const name = `ioa_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    stop: async () => {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
