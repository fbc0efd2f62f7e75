import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { HNSW_EF_CONSTRUCTION, HNSW_M } from '../../apps/discovery/src/indexing/hnsw-index.js';
import {
  runDiscoveryBench,
  type DatabaseKind,
  type DiscoveryBenchResult,
  type LatencyStats,
} from './discovery.bench.js';

/**
 * `npm run bench:discovery [-- options]`
 *
 *   --db=native|pglite     native PostgreSQL 15 + pgvector (default; set up by deploy/local/native-postgres.sh,
 *                          which needs root) or the embedded PGlite
 *   --database-url=URL     use this PostgreSQL server instead of starting one (native only)
 *   --sizes=10000,100000   agents bulk-loaded per run
 *   --registrations=2000   agents registered end to end through registry → discovery (0 to skip)
 *   --queries=1000         latency samples per size (half paraphrased, half example-phrased queries)
 *   --ef-search=500        hnsw.ef_search used by discovery
 *   --tune=16:64,24:128    instead: build the index with each m:ef_construction and measure recall and SQL latency
 *   --tune-ef=40,100,200   ef_search values tried with --tune
 *   --no-docs              do not update docs/benchmarks.md
 */

const root = join(
  dirname(fileURLToPath(import.meta.url)),
  ...(import.meta.url.includes('/dist/') ? ['..', '..', '..', '..'] : ['..', '..']),
);

function argument(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const log = (line: string) => process.stderr.write(`[bench:discovery] ${line}\n`);

async function main(): Promise<void> {
  const kind: DatabaseKind = argument('db', 'native') === 'pglite' ? 'pglite' : 'native-postgres';
  const sizes = argument('sizes', kind === 'pglite' ? '10000' : '10000,100000')
    .split(',')
    .map(Number);
  let serverUrl = argument('database-url', '');
  const dataDir = '/tmp/ioa-bench-pg15';
  const tuneArgument = argument('tune', '');
  const tune = tuneArgument
    ? tuneArgument.split(',').map((pair) => {
        const [m, efConstruction] = pair.split(':').map(Number);
        return { m, efConstruction };
      })
    : undefined;
  let startedCluster = false;
  if (kind === 'native-postgres' && !serverUrl) {
    const script = join(root, 'deploy', 'local', 'native-postgres.sh');
    log(`starting native PostgreSQL with ${script}`);
    const run = spawnSync('bash', [script, dataDir, argument('port', '55439')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (run.status !== 0)
      throw new Error('deploy/local/native-postgres.sh failed (it needs root); or pass --database-url');
    serverUrl = run.stdout.toString().trim().split('\n').pop()!;
    startedCluster = true;
  }
  try {
    const started = Date.now();
    const result = await runDiscoveryBench({
      databaseKind: kind,
      serverUrl,
      sizes,
      registrations: Number(argument('registrations', '2000')),
      latencyQueries: Number(argument('queries', '1000')),
      recallQueries: Number(argument('recall-queries', '300')),
      qualityQueries: Number(argument('quality-queries', '300')),
      registrationConcurrency: Number(argument('concurrency', '16')),
      efSearch: Number(argument('ef-search', '500')),
      tune: tune ? { builds: tune, efSearch: argument('tune-ef', '40,100,200,400').split(',').map(Number) } : undefined,
      log,
    });
    const markdown = tune ? renderTuning(result) : render(result, (Date.now() - started) / 1000);
    process.stdout.write(`${markdown}\n`);
    if (!process.argv.includes('--no-docs')) {
      await updateDocs(tune ? `${kind}:tuning` : kind, markdown);
      log(`updated docs/benchmarks.md (${kind}${tune ? ', tuning' : ''})`);
    }
  } finally {
    if (startedCluster)
      spawnSync('bash', [join(root, 'deploy', 'local', 'native-postgres.sh'), '--stop', dataDir], { stdio: 'inherit' });
  }
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const latency = (stats: LatencyStats) => `${ms(stats.p50)} / ${ms(stats.p99)}`;
const ratio = (value: number) => value.toFixed(3);

/** The 1-minute load average when the run started: other work on the machine inflates latencies. */
const loadAtStart = loadavg()[0];

function machine(): string {
  const memory = `${Math.round(totalmem() / 2 ** 30)} GiB`;
  const load = `load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
  return `${availableParallelism()} CPUs (nproc), ${cpus()[0]?.model ?? 'unknown CPU'}, ${memory} RAM, Node ${process.version}; ${load}`;
}

function render(result: DiscoveryBenchResult, seconds: number): string {
  const lines = [
    `### ${result.databaseKind === 'pglite' ? 'Embedded PGlite' : 'Native PostgreSQL'} — ${new Date().toISOString().slice(0, 10)}`,
    '',
    `- Machine: ${machine()}`,
    `- Database: ${result.databaseKind} (${result.databaseVersion}, pgvector ${result.pgvectorVersion}); ` +
      `HNSW m=${HNSW_M}, ef_construction=${HNSW_EF_CONSTRUCTION}, ef_search=${result.efSearch}, iterative scan relaxed_order`,
    `- Embedder: local-hash-v1, 384 dimensions; everything in one process (bench client, discovery, registry), ` +
      `run took ${Math.round(seconds)} s`,
    '',
    '| agents | search p50 / p99 over NATS | SQL only p50 / p99 | exact scan p50 / p99 | recall@10 (online only / all) | top-1 paraphrased / example-phrased | P@10 paraphrased / example-phrased | bulk load | HNSW build |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const size of result.sizes) {
    lines.push(
      `| ${size.agents.toLocaleString('en-US')} | ${latency(size.natsLatency)} | ${latency(size.sqlLatency)} | ` +
        `${latency(size.exactSqlLatency)} | ${ratio(size.recallAt10)} / ${ratio(size.recallAt10Unfiltered)} | ` +
        `${ratio(size.quality.heldOut.top1)} / ${ratio(size.quality.examplePhrased.top1)} | ` +
        `${ratio(size.quality.heldOut.precisionAt10)} / ${ratio(size.quality.examplePhrased.precisionAt10)} | ` +
        `${size.loadSeconds.toFixed(1)} s (embedding ${size.embedMsPerCard.toFixed(3)} ms/card) | ${size.indexBuildSeconds.toFixed(1)} s |`,
    );
  }
  const samples = result.sizes[0];
  if (samples) {
    lines.push(
      '',
      `Latency: ${samples.natsLatency.count} sequential single-query searches (topK 10, onlineOnly) per size; ` +
        `recall@10 over ${samples.recallQueries} of those queries against an exact (sequential scan) search with the ` +
        `same filters; ranking quality over ${samples.quality.heldOut.queries} labelled queries of each kind ` +
        '(top-1: the first result has the skill asked for; P@10: share of the first ten that have it).',
    );
  }
  if (result.registration) {
    const registration = result.registration;
    lines.push(
      '',
      `Registration end to end (${registration.agents} agents, ${registration.concurrency} in flight, registry → ` +
        `JetStream → discovery): **${registration.registeredPerSecond.toFixed(0)} registrations/s** acknowledged ` +
        `(request p50 / p99 ${latency(registration.registrationLatency)}), **${registration.indexedPerSecond.toFixed(0)} agents/s** ` +
        'searchable (until the last `AgentIndexedV1`).',
    );
  }
  return lines.join('\n');
}

function renderTuning(result: DiscoveryBenchResult): string {
  const lines = [
    `#### HNSW tuning, ${result.databaseKind} — ${new Date().toISOString().slice(0, 10)}`,
    '',
    `Machine: ${machine()}. Recall@10 against exact search (online only / all agents); SQL-only latency of ` +
      'single-query searches (online only).',
    '',
    '| agents | m | ef_construction | build | ef_search | recall@10 | SQL p50 / p99 |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const size of result.sizes) {
    for (const row of size.tuning ?? []) {
      lines.push(
        `| ${size.agents.toLocaleString('en-US')} | ${row.m} | ${row.efConstruction} | ${row.buildSeconds.toFixed(1)} s | ` +
          `${row.efSearch} | ${ratio(row.recallAt10)} / ${ratio(row.recallAt10Unfiltered)} | ${latency(row.sqlLatency)} |`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * Replaces this database kind's results between its markers in docs/benchmarks.md (creating what is missing),
 * formatted by prettier so that the committed file passes `npm run format:check`.
 */
async function updateDocs(kind: string, markdown: string): Promise<void> {
  const file = join(root, 'docs', 'benchmarks.md');
  const start = `<!-- bench:discovery:${kind}:start -->`;
  const end = `<!-- bench:discovery:${kind}:end -->`;
  const options = { ...(await prettier.resolveConfig(file)), parser: 'markdown' };
  const block = `${start}\n\n${(await prettier.format(markdown, options)).trimEnd()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) text = text.slice(0, from) + block + text.slice(to + end.length);
  else text = `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}

main()
  .catch((error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  })
  // Everything is closed by now; exit even if a library left a timer behind.
  .finally(() => process.exit());
