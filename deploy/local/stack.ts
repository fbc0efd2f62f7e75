import 'reflect-metadata';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { ALL_CONTRACTS, HealthV1Request, type AnyContract } from '@ioa/contracts';
import { startEmbeddedPostgres, startNatsServer, type EmbeddedPostgres, type EmbeddedNats } from '@ioa/embedded';
import { parseRestartMode, UNLESS_STOPPED, type RestartMode, type RestartPolicy } from './restart-policy.js';
import { isAlive, SupervisedProcess } from './supervised-process.js';
import { ADAPTERS_SECRET_KEY, ADMIN_API_KEY, localSecret, POSTGRES_PASSWORD } from './local-secrets.js';
import { provisionTrust, serviceCredsPath } from '@ioa/trust';

/**
 * The local stack: NATS with JetStream, PostgreSQL with pgvector, and the seven services as separate Node processes
 * (the same topology as in production, only on one machine). `npm start` and `npm run demo` are thin shells
 * around `startStack`.
 */

/** Start order is also display order; all six start in parallel and find each other over NATS. */
export const SERVICES = ['registry', 'discovery', 'chat', 'scheduler', 'agent-host', 'adapters', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * The repository root: the nearest directory above this file with a package.json (this file runs compiled from
 * dist/deploy/local/ in the launchers, and from its source in deploy/local/ under the fault suite's jest).
 */
export const REPOSITORY_ROOT = findRepositoryRoot(dirname(fileURLToPath(import.meta.url)));

function findRepositoryRoot(start: string): string {
  for (let directory = start; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json')) && existsSync(join(directory, 'deploy', 'local'))) return directory;
    if (dirname(directory) === directory) throw new Error(`no repository root above ${start}`);
  }
}

export interface StackOptions {
  /** JetStream and PGlite files live here, so data survives restarts. Undefined: a temporary directory. */
  dataDir?: string;
  /** External NATS (comma-separated URLs); undefined starts a local nats-server. */
  natsUrl?: string;
  /**
   * Where the local nats-server listens (IOA_NATS_HOST, IOA_NATS_PORT): loopback and a free port by default;
   * 0.0.0.0 or an interface's address lets agents on other hosts join.
   */
  natsListen?: { host?: string; port?: number };
  /** External PostgreSQL with pgvector; undefined starts the embedded PGlite. */
  databaseUrl?: string;
  /** Preferred gateway port; a free one is used instead when it is taken. */
  gatewayPort: number;
  services: readonly ServiceName[];
  /** Processes per service (default 1); replicas share the service's queue group. */
  replicas?: Partial<Record<ServiceName, number>>;
  /** `unless-stopped` restarts a service that dies (with backoff); `no` reports it through `failure`. */
  restart?: RestartMode;
  restartPolicy?: RestartPolicy;
  /** The compiled services (default: `dist/` of the repository). */
  distDir?: string;
  /** Where the services' own lines go (default: stdout, prefixed with the service's name). */
  output?: (label: string, line: string) => void;
  /** Environment handed to every service, on top of what the stack sets itself. */
  environment: NodeJS.ProcessEnv;
  startupTimeoutMs: number;
  /** Prints one line of the launcher's own output. */
  log: (line: string) => void;
  /** Aborting while the stack starts stops what was started and rejects. */
  abort?: AbortSignal;
}

export interface ServiceFailure {
  service: ServiceName;
  /** 1-based, among the service's replicas. */
  replica: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  lastLines: string[];
}

export interface RunningStack {
  /** Undefined when the gateway is not among the started services. */
  gatewayUrl?: string;
  natsUrl: string;
  /** The NATS URL(s) agents dial: the listen address(es) of the local nats-server, or the external NATS_URL. */
  agentNatsUrls: string[];
  databaseUrl: string;
  /** The local admin's API key the gateway accepts (IOA_ADMIN_API_KEY), and the file it is kept in, if any. */
  adminApiKey: string;
  adminApiKeyFile?: string;
  /**
   * The broker's trust (operator, accounts, signing keys) provisioned under the data directory, when the stack runs
   * its own nats-server; undefined with an external NATS_URL.
   */
  trustDir?: string;
  /** The services' NATS credentials (`<service>.creds`): under `trustDir`, or NATS_CREDENTIALS_DIR for external NATS. */
  credentialsDir?: string;
  /**
   * Resolves (never rejects) when a service exits while the stack is meant to be running and will not be restarted
   * (restart mode `no`); with `unless-stopped` it never resolves, since the dead service is restarted.
   */
  failure: Promise<ServiceFailure>;
  /** Each service process as it is now (pid undefined while a dead one waits for its restart). */
  processes(): Array<{ service: ServiceName; replica: number; pid: number | undefined; restarts: number }>;
  stop(): Promise<void>;
}

/** Reads the stack's options from the environment (documented in README.md). */
export function stackOptionsFromEnvironment(
  environment: NodeJS.ProcessEnv,
  defaults: { dataDir?: string; log: (line: string) => void },
): StackOptions {
  const services = environment.IOA_SERVICES
    ? environment.IOA_SERVICES.split(',').map((name) => name.trim())
    : [...SERVICES];
  const unknown = services.filter((name) => !(SERVICES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`IOA_SERVICES names unknown services: ${unknown.join(', ')} (known: ${SERVICES.join(', ')})`);
  }
  const gatewayPort = Number(environment.GATEWAY_PORT ?? 8080);
  if (!Number.isInteger(gatewayPort) || gatewayPort < 0 || gatewayPort > 65535) {
    throw new Error(`GATEWAY_PORT must be a port number, got "${environment.GATEWAY_PORT}"`);
  }
  const natsPort = Number(environment.IOA_NATS_PORT || 0);
  if (!Number.isInteger(natsPort) || natsPort < 0 || natsPort > 65535) {
    throw new Error(`IOA_NATS_PORT must be a port number, got "${environment.IOA_NATS_PORT}"`);
  }
  return {
    dataDir: environment.IOA_DATA_DIR ? resolve(environment.IOA_DATA_DIR) : defaults.dataDir,
    natsUrl: environment.NATS_URL || undefined,
    natsListen: { host: environment.IOA_NATS_HOST || undefined, port: natsPort },
    databaseUrl: environment.DATABASE_URL || undefined,
    gatewayPort,
    services: services as ServiceName[],
    replicas: parseReplicas(environment.IOA_REPLICAS),
    restart: parseRestartMode(environment.IOA_RESTART),
    environment,
    startupTimeoutMs: Number(environment.IOA_STARTUP_TIMEOUT_MS ?? 120_000),
    log: defaults.log,
  };
}

/** `IOA_REPLICAS=chat=2,scheduler=2`: more than one process for some services. */
export function parseReplicas(value: string | undefined): Partial<Record<ServiceName, number>> {
  const replicas: Partial<Record<ServiceName, number>> = {};
  for (const entry of (value ?? '').split(',').map((part) => part.trim())) {
    if (!entry) continue;
    const [name, count] = entry.split('=').map((part) => part.trim());
    if (!(SERVICES as readonly string[]).includes(name)) {
      throw new Error(`IOA_REPLICAS names an unknown service "${name}" (known: ${SERVICES.join(', ')})`);
    }
    const replicaCount = Number(count);
    if (!Number.isInteger(replicaCount) || replicaCount < 1 || replicaCount > 16) {
      throw new Error(`IOA_REPLICAS: ${name} needs a whole number of replicas from 1 to 16, got "${count}"`);
    }
    if (name === 'gateway' && replicaCount > 1) throw new Error('IOA_REPLICAS: the gateway listens on one port');
    replicas[name as ServiceName] = replicaCount;
  }
  return replicas;
}

const COLORS = [36, 35, 33, 32, 34, 96, 95];
const LAST_LINES_KEPT = 30;

function paint(text: string, color: number): string {
  return process.stdout.isTTY ? `\u001b[${color}m${text}\u001b[0m` : text;
}

/** How each service's lines are labelled in the combined output. */
export function servicePrefix(name: string): string {
  // Replicas (`chat#2`) share their service's colour.
  const index = (SERVICES as readonly string[]).indexOf(name.split('#')[0]);
  return paint(name.padEnd(10), COLORS[(index + COLORS.length) % COLORS.length]) + ' | ';
}

/** Starts the whole stack and resolves when every service answers its health check. */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const cleanups: Array<() => Promise<void>> = [];
  let cleaning: Promise<void> | undefined;
  // Undo in reverse order of setup (services, then the database and NATS they use); safe to call twice.
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const cleanup of [...cleanups].reverse()) {
        await cleanup().catch((error: unknown) => options.log(`cleanup failed: ${String(error)}`));
      }
    })());
  try {
    return await startStackWithCleanups(options, cleanups, cleanUp);
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

async function startStackWithCleanups(
  options: StackOptions,
  cleanups: Array<() => Promise<void>>,
  cleanUp: () => Promise<void>,
): Promise<RunningStack> {
  const { log } = options;
  const dataDir = await prepareDataDir(options.dataDir, cleanups, log);
  // Authentication is always on: the first start creates the admin's API key (unless one is given).
  const admin = options.environment.IOA_ADMIN_API_KEY
    ? { key: options.environment.IOA_ADMIN_API_KEY, file: undefined, created: false }
    : localSecret(dataDir, ADMIN_API_KEY);
  if (admin.created) log(`admin API key created in ${admin.file} (mode 0600)`);
  // The adapters' master key (it seals agents' secrets) is created once too, and kept with the data.
  const adaptersKey = options.environment.ADAPTERS_SECRET_KEY ? undefined : localSecret(dataDir, ADAPTERS_SECRET_KEY);
  if (adaptersKey?.created) log(`adapters secret key created in ${adaptersKey.file} (mode 0600)`);
  const throwIfAborted = () => {
    if (options.abort?.aborted) throw new Error('start-up interrupted');
  };

  // The broker always authenticates: the first start provisions the operator, accounts and one least-privilege
  // user per service under the data directory; later starts load them (and re-sign the services' permissions).
  const trust = options.natsUrl ? undefined : await provisionTrust(join(dataDir, 'trust'));
  if (trust?.created)
    log(`NATS credentials created in ${trust.layout.root} (operator, accounts, one user per service)`);
  // An external broker is configured by its operator, who provisions the services' credentials and points
  // NATS_CREDENTIALS_DIR at them (docs/security.md).
  const credentialsDir = trust ? trust.layout.credsDir : options.environment.NATS_CREDENTIALS_DIR || undefined;
  if (!credentialsDir) {
    log('external NATS_URL without NATS_CREDENTIALS_DIR: the services connect without credentials');
  }

  // The embedded PostgreSQL asks for a password like any PostgreSQL; it is kept with the data for psql.
  const postgresPassword = options.databaseUrl ? undefined : localSecret(dataDir, POSTGRES_PASSWORD);

  // Infrastructure: external when configured, embedded otherwise.
  // Each is registered for clean-up as soon as it runs, so a failure of the other does not leak it.
  const [nats, database] = await allOrCleanUp([
    options.natsUrl
      ? undefined
      : startNatsServer({
          storeDir: join(dataDir, 'nats'),
          detached: true,
          configFile: trust?.layout.serverConfig,
          ...options.natsListen,
        }).then((server) => {
          cleanups.push(() => server.stop());
          return server;
        }),
    options.databaseUrl
      ? undefined
      : startEmbeddedDatabase(join(dataDir, 'pglite'), postgresPassword!.key).then((server) => {
          cleanups.push(() => server.stop());
          return server;
        }),
  ] as const);
  const natsUrl = options.natsUrl ?? (nats as EmbeddedNats).url;
  const databaseUrl = options.databaseUrl ?? (database as EmbeddedPostgres).url;
  log(
    `NATS        ${natsUrl}${nats ? ` (embedded nats-server with JWT authentication, JetStream in ${join(dataDir, 'nats')})` : ' (external)'}`,
  );
  log(
    `PostgreSQL  ${redactPassword(databaseUrl)}${database ? ` (embedded PGlite + pgvector in ${join(dataDir, 'pglite')}, password in ${postgresPassword?.file})` : ' (external)'}`,
  );

  throwIfAborted();
  // The launcher asks the services for their health as the gateway does, so it uses the gateway's user.
  const launcherCreds = credentialsDir ? serviceCredsPath(credentialsDir, 'gateway') : undefined;
  const connection = await connect({
    servers: natsUrl.split(','),
    name: 'ioa-stack-launcher',
    ...(launcherCreds && existsSync(launcherCreds)
      ? { authenticator: credsAuthenticator(readFileSync(launcherCreds)), inboxPrefix: '_INBOX.gateway' }
      : {}),
  });
  cleanups.push(() => connection.close());

  let gatewayPort: number | undefined;
  if (options.services.includes('gateway')) {
    gatewayPort = await choosePort(options.gatewayPort);
    if (gatewayPort !== options.gatewayPort) {
      log(`port ${options.gatewayPort} is taken: the gateway uses ${gatewayPort} instead (set GATEWAY_PORT to choose)`);
    }
  }

  const environment: NodeJS.ProcessEnv = {
    ...options.environment,
    NATS_URL: natsUrl,
    DATABASE_URL: databaseUrl,
    IOA_ADMIN_API_KEY: admin.key,
    ...(credentialsDir ? { NATS_CREDENTIALS_DIR: credentialsDir } : {}),
    ...(adaptersKey ? { ADAPTERS_SECRET_KEY: adaptersKey.key } : {}),
    ...(gatewayPort === undefined ? {} : { GATEWAY_PORT: String(gatewayPort) }),
    // Nest colours its logs only for terminals; keep the prefixed output readable when it is piped.
    ...(process.stdout.isTTY ? {} : { NO_COLOR: '1' }),
  };

  let reportFailure: (failure: ServiceFailure) => void = () => undefined;
  const failure = new Promise<ServiceFailure>((resolveFailure) => (reportFailure = resolveFailure));
  const processes: Array<{ service: ServiceName; replica: number; supervised: SupervisedProcess }> = [];
  cleanups.push(async () => {
    await Promise.all(processes.map(({ supervised }) => supervised.stop(10_000)));
  });
  const output = options.output ?? ((label, line) => process.stdout.write(servicePrefix(label) + line + '\n'));

  throwIfAborted();
  for (const service of options.services) {
    const distDir = options.distDir ?? join(REPOSITORY_ROOT, 'dist');
    const entry = join(distDir, 'apps', service, 'src', 'main.js');
    if (!existsSync(entry)) throw new Error(`${entry} does not exist: run \`npm run build\` first`);
    const count = options.replicas?.[service] ?? 1;
    for (let replica = 1; replica <= count; replica += 1) {
      const label = count > 1 ? `${service}#${replica}` : service;
      const supervised = new SupervisedProcess({
        label,
        command: process.execPath,
        args: ['--enable-source-maps', '--import', watchdogUrl(distDir), entry],
        // Own process group: a Ctrl-C reaches the launcher only, which then stops the services in order.
        spawnOptions: {
          cwd: REPOSITORY_ROOT,
          // A stable id per replica: a restarted agent-host takes back the work it owned at once, instead of
          // waiting for its lease to run out (each replica needs its own, or two would take each other's work).
          env: {
            ...environment,
            AGENT_HOST_INSTANCE_ID: environment.AGENT_HOST_INSTANCE_ID ?? `local-${service}-${replica}`,
            ADAPTERS_INSTANCE_ID: environment.ADAPTERS_INSTANCE_ID ?? `local-${service}-${replica}`,
            // Only the registry, the identity authority, gets the signing keys for agents' credentials.
            ...(trust && service === 'registry' ? { IOA_TRUST_DIR: trust.layout.root } : {}),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        },
        mode: options.restart ?? 'unless-stopped',
        policy: options.restartPolicy ?? UNLESS_STOPPED,
        onLine: (line) => output(label, line),
        log,
        keepLines: LAST_LINES_KEPT,
        onGiveUp: (exit) => reportFailure({ service, replica, ...exit }),
      });
      processes.push({ service, replica, supervised });
      supervised.start();
    }
  }
  const gatewayUrl = gatewayPort === undefined ? undefined : `http://127.0.0.1:${gatewayPort}`;
  const startedAt = Date.now();
  const early = await Promise.race([
    waitUntilHealthy(options.services, connection, gatewayUrl, options.startupTimeoutMs, log).then(() => undefined),
    failure,
    aborted(options.abort),
  ]);
  if (early === 'aborted') throw new Error('start-up interrupted');
  if (early) throw new Error(describeFailure(early));
  log(`all ${options.services.length} services are healthy after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);

  return {
    gatewayUrl,
    natsUrl,
    agentNatsUrls: nats ? nats.agentUrls : natsUrl.split(','),
    databaseUrl,
    adminApiKey: admin.key,
    adminApiKeyFile: admin.file,
    trustDir: trust?.layout.root,
    credentialsDir,
    failure,
    processes: () =>
      processes.map(({ service, replica, supervised }) => ({
        service,
        replica,
        pid: supervised.pid,
        restarts: supervised.restarts,
      })),
    stop: cleanUp,
  };
}

/** A report a person can act on: which service, how it ended, and what it said last. */
export function describeFailure(failure: ServiceFailure): string {
  const how = failure.signal ? `was killed by ${failure.signal}` : `exited with code ${failure.exitCode}`;
  const tail =
    failure.lastLines.length > 0 ? failure.lastLines.map((line) => `    ${line}`).join('\n') : '    (no output)';
  const which = failure.replica > 1 ? `${failure.service}#${failure.replica}` : failure.service;
  return `service "${which}" ${how}. Its last lines:\n${tail}`;
}

/** Like Promise.all, but waits for every promise to settle before rejecting, so each can register its clean-up. */
async function allOrCleanUp<T extends readonly unknown[]>(
  promises: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(promises);
  const rejected = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as never;
}

function aborted(signal: AbortSignal | undefined): Promise<'aborted'> {
  if (signal?.aborted) return Promise.resolve('aborted');
  return new Promise((resolveAborted) => signal?.addEventListener('abort', () => resolveAborted('aborted')));
}

function watchdogUrl(distDir: string): string {
  return pathToFileURL(join(distDir, 'deploy', 'local', 'parent-watchdog.js')).href;
}

function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * A persistent data directory is locked with a pid file: two stacks writing the same PGlite and JetStream files
 * would corrupt both.
 */
async function prepareDataDir(
  requested: string | undefined,
  cleanups: Array<() => Promise<void>>,
  log: (line: string) => void,
): Promise<string> {
  if (!requested) {
    const temporary = mkdtempSync(join(tmpdir(), 'ioa-stack-'));
    cleanups.push(() => {
      rmSync(temporary, { recursive: true, force: true });
      return Promise.resolve();
    });
    return temporary;
  }
  mkdirSync(requested, { recursive: true });
  const lock = join(requested, 'stack.pid');
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, 'utf8'));
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
      throw new Error(`another stack (pid ${pid}) is using ${requested}; stop it, or set IOA_DATA_DIR elsewhere`);
    }
  }
  await stopOrphanedNatsServer(join(requested, 'nats'), log);
  writeFileSync(lock, String(process.pid));
  cleanups.push(() => {
    rmSync(lock, { force: true });
    return Promise.resolve();
  });
  return requested;
}

/**
 * A launcher killed with SIGKILL cannot stop its nats-server (the services stop themselves, see
 * parent-watchdog.ts). Such an orphan still holds this data directory's JetStream store, so it is found by its
 * exact `-sd` argument and stopped before a new one starts.
 */
async function stopOrphanedNatsServer(storeDir: string, log: (line: string) => void): Promise<void> {
  if (!existsSync('/proc')) return;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // exited meanwhile, or not ours to read
    }
    const storeIndex = argv.indexOf('-sd');
    if (basename(argv[0] ?? '') === 'nats-server' && storeIndex > 0 && argv[storeIndex + 1] === storeDir) {
      const pid = Number(entry);
      log(`stopping nats-server ${pid}, left running on ${storeDir} by a launcher that was killed`);
      process.kill(pid, 'SIGTERM');
      for (let waited = 0; isAlive(pid) && waited < 10_000; waited += 100) {
        await new Promise((wake) => setTimeout(wake, 100));
      }
    }
  }
}

async function startEmbeddedDatabase(dataDir: string, password: string): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  try {
    return await startEmbeddedPostgres({ dataDir, password });
  } catch (error) {
    throw new Error(
      `the embedded database in ${dataDir} did not start (${String(error)}). ` +
        'If it was written by another PGlite version, delete that directory to start afresh.',
      { cause: error },
    );
  }
}

/** The preferred port when it is free, otherwise any free port. */
async function choosePort(preferred: number): Promise<number> {
  if (preferred > 0 && (await canListen(preferred))) return preferred;
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    // No host: the same "all interfaces" binding the gateway uses, so a clash on any interface is found.
    server.listen(port, () => server.close(() => resolveFree(true)));
  });
}

function healthContractOf(service: ServiceName): AnyContract | undefined {
  return ALL_CONTRACTS.find(
    (contract) => contract.kind === 'request' && contract.owner === service && contract.request === HealthV1Request,
  );
}

/** Each NATS service answers its health subject; the gateway answers GET /health. Polls until all do. */
async function waitUntilHealthy(
  services: readonly ServiceName[],
  connection: NatsConnection,
  gatewayUrl: string | undefined,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(services);
  const lastProblem = new Map<ServiceName, string>();
  while (pending.size > 0) {
    await Promise.all(
      [...pending].map(async (service) => {
        const problem = await healthProblem(service, connection, gatewayUrl);
        if (problem === undefined) {
          pending.delete(service);
          log(`${service} is healthy`);
        } else {
          lastProblem.set(service, problem);
        }
      }),
    );
    if (pending.size === 0) return;
    if (Date.now() > deadline) {
      const details = [...pending].map((service) => `${service}: ${lastProblem.get(service) ?? 'no answer'}`);
      throw new Error(`services not healthy after ${timeoutMs / 1000} s:\n  ${details.join('\n  ')}`);
    }
    await new Promise((wake) => setTimeout(wake, 250));
  }
}

async function healthProblem(
  service: ServiceName,
  connection: NatsConnection,
  gatewayUrl: string | undefined,
): Promise<string | undefined> {
  try {
    if (service === 'gateway') {
      const response = await fetch(`${gatewayUrl}/health`, { signal: AbortSignal.timeout(2000) });
      return response.ok ? undefined : `GET /health answered ${response.status}: ${await response.text()}`;
    }
    const contract = healthContractOf(service);
    if (!contract) return undefined; // no health subject declared: nothing to wait for
    const reply = await connection.request(contract.subject, '{}', { timeout: 2000 });
    const body = JSON.parse(new TextDecoder().decode(reply.data)) as {
      ok?: boolean;
      data?: { status?: string };
      error?: { message?: string };
    };
    if (body.ok && body.data?.status === 'ok') return undefined;
    return body.ok ? `status ${body.data?.status}` : (body.error?.message ?? 'error reply');
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
