import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { startEmbeddedPostgres, startNatsServer, type NatsServerOptions } from '@ioa/embedded';
import { inboxPrefixOf, provisionTrust, serviceCredsPath, type PlatformService, type TrustLayout } from '@ioa/trust';
import { TEST_ADMIN_API_KEY } from './test-credentials.js';
import { issueTestAgentCreds } from './test-agent-identity.js';

export interface TestInfrastructure {
  natsUrl: string;
  databaseUrl: string;
  /** Points NATS_URL / DATABASE_URL (and any extra variables) at this infrastructure for services booted next. */
  applyEnvironment(extra?: Record<string, string>): void;
  stop(): Promise<void>;
  /** With `auth: true`: the provisioned credentials (operator, accounts, signing keys, service creds). */
  trust?: TrustLayout;
  /** Connects as a platform service's own NATS user (its least privilege; `auth: true` only). */
  connectAsService(service: PlatformService): Promise<NatsConnection>;
  /** Connects as an agent with its own identity (a user JWT named by `agentId`; `auth: true` only). */
  connectAsAgent(agentId: string): Promise<NatsConnection>;
  /** The broker's "Permissions Violation" log lines so far (`auth: true`): who was refused what. */
  permissionViolations(): string[];
  /** Connects without credentials: refused by a broker with `auth: true`. */
  connectAnonymous(): Promise<NatsConnection>;
}

export interface TestInfrastructureOptions {
  nats?: NatsServerOptions;
  /**
   * Provision credentials into a temporary directory and start the broker with JWT authentication: services then
   * connect with `<NATS_CREDENTIALS_DIR>/<service>.creds` (set by `applyEnvironment`), as `npm start` runs them.
   */
  auth?: boolean;
}

/**
 * A real nats-server (JetStream on) and a real, empty database for one test file. With TEST_DATABASE_URL set
 * (CI does this for native PostgreSQL 15 + pgvector) each test file gets a fresh database on that server;
 * otherwise an embedded PGlite with pgvector. `nats` sets where the broker listens (loopback by default).
 */
export async function startTestInfrastructure(options: TestInfrastructureOptions = {}): Promise<TestInfrastructure> {
  const trustRoot = options.auth ? mkdtempSync(join(tmpdir(), 'ioa-trust-')) : undefined;
  const trust = trustRoot ? (await provisionTrust(trustRoot)).layout : undefined;
  const violations: string[] = [];
  const collectViolations = (text: string) => {
    for (const line of text.split('\n')) if (/Violation/.test(line)) violations.push(line);
  };
  const nats = await startNatsServer({
    ...options.nats,
    ...(trust ? { configFile: trust.serverConfig, onOutput: collectViolations } : {}),
  });
  const database = process.env.TEST_DATABASE_URL
    ? await createFreshDatabase(process.env.TEST_DATABASE_URL)
    : await startEmbeddedPostgres();
  const touched = new Map<string, string | undefined>();
  const requireTrust = (): TrustLayout => {
    if (!trust) throw new Error('start the test infrastructure with { auth: true } to connect with credentials');
    return trust;
  };
  const connections: NatsConnection[] = [];
  const connectWith = async (name: string, creds?: string): Promise<NatsConnection> => {
    const connection = await connect({
      servers: nats.url,
      name,
      ...(creds
        ? { authenticator: credsAuthenticator(new TextEncoder().encode(creds)), inboxPrefix: inboxPrefixOf(name) }
        : {}),
      // A refused connection must fail the test at once, not retry.
      reconnect: false,
    });
    connections.push(connection);
    return connection;
  };
  return {
    natsUrl: nats.url,
    databaseUrl: database.url,
    trust,
    connectAsService: (service) =>
      connectWith(service, readFileSync(serviceCredsPath(requireTrust().credsDir, service), 'utf8')),
    connectAsAgent: async (agentId) => connectWith(agentId, await issueTestAgentCreds(requireTrust().root, agentId)),
    connectAnonymous: () => connectWith('test-anonymous'),
    permissionViolations: () => [...violations],
    applyEnvironment(extra = {}) {
      const variables = {
        NATS_URL: nats.url,
        DATABASE_URL: database.url,
        IOA_ADMIN_API_KEY: TEST_ADMIN_API_KEY,
        ...(trust ? { NATS_CREDENTIALS_DIR: trust.credsDir } : {}),
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
      await Promise.allSettled(connections.map((connection) => connection.close()));
      await Promise.allSettled([nats.stop(), database.stop()]);
      if (trustRoot) rmSync(trustRoot, { recursive: true, force: true });
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
