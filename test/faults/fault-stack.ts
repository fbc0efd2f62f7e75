import { execFile } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createUser } from '@nats-io/nkeys';
import { credsAuthenticator, type Authenticator } from '@nats-io/transport-node';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { TEST_ADMIN_API_KEY } from '@ioa/testing';
import {
  credsText,
  encodeUserJwt,
  inboxPrefixOf,
  provisionTrust,
  readKeyPair,
  serviceCredsPath,
  type PlatformService,
} from '@ioa/trust';
import {
  parseReplicas,
  REPOSITORY_ROOT,
  startStack,
  type RunningStack,
  type ServiceName,
} from '../../deploy/local/stack.js';

const run = promisify(execFile);

/**
 * The fault suite's stack: the compiled services as separate processes under the launcher's supervision (exactly
 * what `npm start` runs), over one nats-server this suite can stop and start again on the same port and store, and
 * a native PostgreSQL 15 cluster (`deploy/local/native-postgres.sh`) it can restart too. Each run gets a fresh
 * database in that cluster. Authentication is on, as in `npm start`: the broker runs with the trust provisioned
 * under the run's directory, every service on its own NATS user, the registry with the identity keys.
 *
 * Environment:
 * - `IOA_FAULTS_PG_DIR` / `IOA_FAULTS_PG_PORT`: the cluster's data directory and port (CI passes the one its native
 *   PostgreSQL step started; the script starts it when it is not running).
 * - `IOA_FAULTS_REPLICAS`: replicas per service, default `chat=2,scheduler=2`.
 * - `IOA_FAULTS_RESTART_DELAY_MS`: how long a killed service stays down before the launcher restarts it (100).
 * - `IOA_FAULTS_LOG`: the file that receives every service line (default: a temporary file, printed at the start).
 */
export interface FaultStack {
  stack: RunningStack;
  gatewayUrl: string;
  natsUrl: string;
  databaseUrl: string;
  logFile: string;
  /** When each process label (`chat#1`, `gateway`) last said it had started. */
  startedAt: Map<string, number>;
  /**
   * How the suite's own connections authenticate: as a platform service (its least-privilege user), or as
   * `observer`, a test-only user of the IOA account that may read everything (the suite watches events no single
   * principal may read).
   */
  natsIdentity(as: PlatformService | 'observer'): Promise<{ authenticator: Authenticator; inboxPrefix: string }>;
  restartNats(): Promise<void>;
  restartPostgres(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Short TTLs and timeouts, so that recoveries that wait on them fit in a CI run. The heartbeat TTL stays longer than
 * a loaded machine takes to restart agent-host (its agents must not be declared offline while it boots).
 */
export const FAULT_ENVIRONMENT: NodeJS.ProcessEnv = {
  // The suite's REST calls authenticate as the test stack's admin (adminAuthHeaders()).
  IOA_ADMIN_API_KEY: TEST_ADMIN_API_KEY,
  REGISTRY_HEARTBEAT_TTL_SECONDS: '20',
  REGISTRY_PRESENCE_SWEEP_MS: '500',
  AGENT_HOST_HEARTBEAT_MS: '1000',
  SCHEDULER_TURN_TIMEOUT_SECONDS: '8',
  SCHEDULER_TASK_DEADLINE_SECONDS: '90',
  SCHEDULER_DISPATCH_BACKOFF_MS: '200',
  SCHEDULER_DISPATCH_TIMEOUT_MS: '2000',
  REQUEST_TIMEOUT_MS: '3000',
  // Work an agent-host replica owned when it died is taken over by another after this lease (a restarted replica
  // takes its own back at once: the launcher gives each replica a stable AGENT_HOST_INSTANCE_ID).
  AGENT_HOST_WORK_LEASE_MS: '3000',
  // The same for tasks the adapters service was carrying on for A2A/MCP/webhook agents (when it runs: see
  // adapters.fault-spec.ts); an endpoint is probed every second, so a dead one stops heartbeating at once.
  ADAPTERS_TASK_LEASE_MS: '3000',
  ADAPTERS_HEARTBEAT_MS: '1000',
};

/** The services the suite runs unless a spec asks for others (the adapters spec adds `adapters`). */
export const FAULT_SERVICES: ServiceName[] = ['registry', 'discovery', 'chat', 'scheduler', 'agent-host', 'gateway'];

const STARTED = /Nest (microservice|application) successfully started/;

export async function startFaultStack(options: { services?: ServiceName[] } = {}): Promise<FaultStack> {
  const workDir = mkdtempSync(join(tmpdir(), 'ioa-faults-'));
  const logFile = process.env.IOA_FAULTS_LOG ?? join(workDir, 'services.log');
  mkdirSync(join(workDir, 'nats'), { recursive: true });
  const write = (line: string) => appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);

  const { layout: trust } = await provisionTrust(join(workDir, 'trust'));
  const natsPort = await freePort();
  const natsOptions = { port: natsPort, storeDir: join(workDir, 'nats'), configFile: trust.serverConfig };
  let nats: EmbeddedNats = await startNatsServer(natsOptions);

  const pgDir = process.env.IOA_FAULTS_PG_DIR ?? '/tmp/ioa-faults-pg';
  const pgPort = Number(process.env.IOA_FAULTS_PG_PORT ?? (await freePort()));
  const clusterUrl = await startPostgres(pgDir, pgPort);
  // A cluster found running keeps its own port; a restart must bring it back there.
  const runningPort = Number(new URL(clusterUrl).port);
  const database = `ioa_faults_${Date.now()}`;
  await withClient(clusterUrl, (client) => client.query(`CREATE DATABASE ${database}`));
  const databaseUrl = clusterUrl.replace(/\/postgres$/, `/${database}`);
  await withClient(databaseUrl, (client) => client.query('CREATE EXTENSION IF NOT EXISTS vector'));

  const startedAt = new Map<string, number>();
  const stack = await startStack({
    natsUrl: nats.url,
    databaseUrl,
    gatewayPort: 0,
    services: options.services ?? FAULT_SERVICES,
    replicas: parseReplicas(process.env.IOA_FAULTS_REPLICAS ?? 'chat=2,scheduler=2'),
    restart: 'unless-stopped',
    // Quick restarts by default: the suite measures recovery, not the backoff. A longer first delay leaves a service
    // down for a while, as a person restarting it by hand would.
    restartPolicy: {
      initialDelayMs: Number(process.env.IOA_FAULTS_RESTART_DELAY_MS ?? 100),
      maxDelayMs: 5000,
      stableAfterMs: 5000,
    },
    distDir: process.env.IOA_DIST_DIR,
    // Every service gets its own creds from NATS_CREDENTIALS_DIR; only the registry reads IOA_TRUST_DIR.
    environment: {
      ...process.env,
      ...FAULT_ENVIRONMENT,
      NATS_CREDENTIALS_DIR: trust.credsDir,
      IOA_TRUST_DIR: trust.root,
    },
    startupTimeoutMs: 180_000,
    log: (line) => write(`stack      | ${line}`),
    output: (label, line) => {
      if (STARTED.test(line)) startedAt.set(label, Date.now());
      write(`${label.padEnd(12)}| ${line}`);
    },
  });

  return {
    stack,
    gatewayUrl: stack.gatewayUrl!,
    natsUrl: nats.url,
    databaseUrl,
    logFile,
    startedAt,
    natsIdentity: async (as) => {
      if (as !== 'observer') {
        const creds = readFileSync(serviceCredsPath(trust.credsDir, as));
        return { authenticator: credsAuthenticator(creds), inboxPrefix: inboxPrefixOf(as) };
      }
      const user = createUser();
      const everything = { allow: ['>'], deny: [] };
      const jwt = await encodeUserJwt('fault-suite-observer', user, readKeyPair(trust.ioaAccountSeed), {
        permissions: { pub: everything, sub: everything },
      });
      const creds = new TextEncoder().encode(credsText(jwt, user));
      return { authenticator: credsAuthenticator(creds), inboxPrefix: inboxPrefixOf('fault-suite-observer') };
    },
    restartNats: async () => {
      await nats.stop();
      nats = await startNatsServer(natsOptions);
    },
    restartPostgres: async () => {
      await run(join(REPOSITORY_ROOT, 'deploy', 'local', 'native-postgres.sh'), ['--stop', pgDir]);
      await startPostgres(pgDir, runningPort);
    },
    stop: async () => {
      await stack.stop();
      await nats.stop();
      await withClient(clusterUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(
        (error: unknown) => write(`could not drop ${database}: ${String(error)}`),
      );
      if (!process.env.IOA_FAULTS_LOG) rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** Starts the cluster (or finds it running) and returns its URL; the script prints only the URL on stdout. */
async function startPostgres(dir: string, port: number): Promise<string> {
  const { stdout } = await run(join(REPOSITORY_ROOT, 'deploy', 'local', 'native-postgres.sh'), [dir, String(port)], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The last lines of the services' log, for a failure message. */
export function tailOf(file: string, lines = 60): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export type { ServiceName };
