import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { format, resolveConfig } from 'prettier';
import { startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';

/**
 * What the issue-3 benchmarks (`chat-path`, `platform-overhead`, `model-tokens`) share: latency statistics, the
 * machine description, the database to run on, and rewriting their own sections of docs/benchmarks.md.
 *
 * The benchmarks are Jest files with the `.bench.ts` suffix, so the default `npm test` (which matches only
 * `.spec.ts` / `.e2e-spec.ts`) never runs them; each has its own `npm run bench:*` script. Options are environment
 * variables (Jest rejects unknown command-line flags); every bench reads `BENCH_NO_DOCS=1` (print only).
 */

export const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// ---------------------------------------------------------------------------------------------------------------
// statistics

export interface Distribution {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of `values` (milliseconds, usually); zeros when there are none. */
export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return {
    count: sorted.length,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: rank(50),
    p90: rank(90),
    p99: rank(99),
    max: sorted[sorted.length - 1],
  };
}

export const ms = (value: number) =>
  value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(value >= 10 ? 1 : 2)} ms`;
export const p50p99 = (d: Distribution) => `${ms(d.p50)} / ${ms(d.p99)}`;
export const perSecond = (value: number) => `${value.toFixed(value >= 100 ? 0 : 1)}/s`;
/** A ratio with sensible precision: `1877`, `58.0`, `1.387`, `0.0060` (two significant digits below one). */
export const ratio = (value: number) => {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(3);
  return value.toPrecision(2);
};

/** Elapsed milliseconds since `from` (`performance.now()` timestamps). */
export const since = (from: number) => performance.now() - from;

// ---------------------------------------------------------------------------------------------------------------
// the machine

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memory: string;
  node: string;
}

export function machineInfo(): MachineInfo {
  const cpuinfo = readIfExists('/proc/cpuinfo');
  const meminfo = readIfExists('/proc/meminfo');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown CPU';
  const kib = Number(/^MemTotal:\s*(\d+)\s*kB$/m.exec(meminfo)?.[1] ?? 0);
  return {
    cpus: availableParallelism(),
    cpuModel: model,
    memory: kib > 0 ? `${(kib / 2 ** 20).toFixed(1)} GiB` : 'unknown',
    node: process.version,
  };
}

export function describeMachine(info: MachineInfo = machineInfo()): string {
  return `${info.cpus} CPUs (nproc), ${info.cpuModel}, ${info.memory} RAM, Node ${info.node}`;
}

/** The 1/5/15-minute load averages, e.g. `8.1 / 7.9 / 9.2`: the machine is shared, so every figure says how busy it was. */
export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
}

function readIfExists(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// databases

export type DatabaseKind = 'pglite' | 'native-postgres';

export const DATABASE_LABELS: Record<DatabaseKind, string> = {
  pglite: 'embedded PGlite',
  'native-postgres': 'native PostgreSQL',
};

/**
 * The databases a bench runs on: `BENCH_DB=pglite|native|both` (default `fallback`). `native` uses
 * `TEST_DATABASE_URL` when set, else starts a throwaway PostgreSQL 15 + pgvector cluster with
 * deploy/local/native-postgres.sh (needs root); when neither is possible the native run is skipped and said so.
 */
export function databaseKinds(fallback: 'pglite' | 'native' | 'both' = 'both'): DatabaseKind[] {
  const wanted = (process.env.BENCH_DB ?? fallback).toLowerCase();
  if (wanted === 'pglite') return ['pglite'];
  if (wanted === 'native') return ['native-postgres'];
  return ['pglite', 'native-postgres'];
}

export interface NativeServer {
  url: string;
  /** Stops the cluster if this process started it. */
  stop(): void;
}

const NATIVE_DATA_DIR = '/tmp/ioa-bench-issue3-pg15';
const NATIVE_PORT = process.env.BENCH_PG_PORT ?? '55441';

/** A native PostgreSQL server URL, or the reason there is none. */
export function nativePostgres(log: (line: string) => void): NativeServer | { unavailable: string } {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: () => undefined };
  const script = join(REPOSITORY_ROOT, 'deploy', 'local', 'native-postgres.sh');
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return { unavailable: 'no TEST_DATABASE_URL, and deploy/local/native-postgres.sh needs root' };
  }
  log(`starting native PostgreSQL 15 (${script} ${NATIVE_DATA_DIR} ${NATIVE_PORT})`);
  const run = spawnSync('bash', [script, NATIVE_DATA_DIR, NATIVE_PORT], { stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0) {
    const tail = run.stderr.toString().trim().split('\n').slice(-3).join(' | ');
    return { unavailable: `deploy/local/native-postgres.sh failed: ${tail}` };
  }
  const url = run.stdout.toString().trim().split('\n').pop()!;
  return {
    url,
    stop: () => {
      spawnSync('bash', [script, '--stop', NATIVE_DATA_DIR], { stdio: 'ignore' });
    },
  };
}

/**
 * A real nats-server and a fresh database of `kind` (on native PostgreSQL: a throwaway database on `serverUrl`),
 * exactly as the integration tests get them.
 */
export async function startBenchInfrastructure(kind: DatabaseKind, serverUrl?: string): Promise<TestInfrastructure> {
  const previous = process.env.TEST_DATABASE_URL;
  if (kind === 'native-postgres') process.env.TEST_DATABASE_URL = serverUrl;
  else delete process.env.TEST_DATABASE_URL;
  try {
    return await startTestInfrastructure();
  } finally {
    if (previous === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = previous;
  }
}

/** `PostgreSQL 15.x` / `PostgreSQL 17.x (PGlite)`: what the database says it is. */
export async function databaseVersion(databaseUrl: string, kind: DatabaseKind): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const row = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0];
    return `PostgreSQL ${row.server_version.split(' ')[0]}${kind === 'pglite' ? ' in WebAssembly (PGlite), same process' : ''}`;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// docs/benchmarks.md

const BENCHMARKS_DOC = join(REPOSITORY_ROOT, 'docs', 'benchmarks.md');

/**
 * Rewrites this bench's section of docs/benchmarks.md in place: `<!-- bench:<section> -->` … `<!-- /bench:<section> -->`
 * holds `intro` followed by one block per result key (`<!-- bench:<section>:<key> -->` …), so a run on PGlite only
 * replaces the PGlite block and keeps the native one. Other sections of the file are never touched.
 */
export async function updateBenchmarksDoc(
  section: string,
  intro: string,
  key: string,
  markdown: string,
  order: string[],
): Promise<void> {
  if (process.env.BENCH_NO_DOCS === '1') return;
  // Formatted as `prettier --check` expects (tables padded, emphasis with _), so CI's format check stays green.
  const pretty = async (markdown: string) =>
    (await format(markdown, { ...(await resolveConfig(BENCHMARKS_DOC)), parser: 'markdown' })).trim();
  const open = `<!-- bench:${section} -->`;
  const close = `<!-- /bench:${section} -->`;
  let text = existsSync(BENCHMARKS_DOC) ? readFileSync(BENCHMARKS_DOC, 'utf8') : '# Benchmarks\n';
  const from = text.indexOf(open);
  const to = text.indexOf(close);
  const existing = from >= 0 && to > from ? text.slice(from + open.length, to) : '';
  const blocks = new Map<string, string>();
  for (const match of existing.matchAll(/<!-- bench:([^ ]+?):([a-z0-9-]+) -->\n([\s\S]*?)\n<!-- \/bench:\1:\2 -->/g)) {
    if (match[1] === section) blocks.set(match[2], match[3]);
  }
  blocks.set(key, markdown.trim());
  const keys = [
    ...order.filter((name) => blocks.has(name)),
    ...[...blocks.keys()].filter((name) => !order.includes(name)),
  ];
  const body = await pretty(
    [
      open,
      intro.trim(),
      ...keys.map(
        (name) => `<!-- bench:${section}:${name} -->\n${blocks.get(name)}\n<!-- /bench:${section}:${name} -->`,
      ),
      close,
    ].join('\n\n'),
  );
  if (from >= 0 && to > from) text = text.slice(0, from) + body + text.slice(to + close.length);
  else text = `${text.trimEnd()}\n\n${body}\n`;
  writeFileSync(BENCHMARKS_DOC, text);
}

/** One line of progress on stderr (Jest keeps stdout for its reporter). */
export function benchLog(bench: string): (line: string) => void {
  return (line: string) => process.stderr.write(`[bench:${bench}] ${line}\n`);
}

/** The date of a run, `YYYY-MM-DD HH:MM UTC`. */
export function runDate(): string {
  return `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The command as it was run: `BENCH_*` variables that were set (and whether TEST_DATABASE_URL was), then the script. */
export function benchCommand(script: string): string {
  const variables = Object.keys(process.env)
    .filter((name) => name.startsWith('BENCH_') && name !== 'BENCH_NO_DOCS')
    .sort()
    .map((name) => `${name}=${process.env[name]}`);
  if (process.env.TEST_DATABASE_URL) variables.unshift('TEST_DATABASE_URL=…');
  return [...variables, `npm run ${script}`].join(' ');
}

export function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a positive number, got "${value}"`);
  return parsed;
}
