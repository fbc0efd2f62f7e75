import { randomUUID } from 'node:crypto';
import type { INestMicroservice, LogLevel } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import {
  AgentIndexedV1,
  RegisterAgentV1,
  SearchAgentsV1,
  type AgentIndexedV1Event,
  type SearchAgentsV1Request,
} from '@ioa/contracts';
import { startEmbeddedPostgres, startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { createService, requestContract } from '@ioa/messaging';
import { connectRaw } from '@ioa/testing';
import { DiscoveryModule } from '../../apps/discovery/src/discovery.module.js';
import { LocalHashEmbedder } from '@ioa/embeddings';
import { cardDocument, skillTags, toVectorLiteral } from '../../apps/discovery/src/indexing/card-document.js';
import {
  createHnswIndexSql,
  hnswIndexName,
  HNSW_EF_CONSTRUCTION,
  HNSW_M,
} from '../../apps/discovery/src/indexing/hnsw-index.js';
import { AgentSearchRepository } from '../../apps/discovery/src/search/agent-search.repository.js';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { AgentCardGenerator, type LabelledQuery } from './discovery-cards.js';

/**
 * The discovery benchmark: bulk-loads 10,000 and 100,000 generated agent cards into discovery's table, then
 * measures search latency (through NATS, and the SQL alone), recall@10 of the HNSW index against exact search,
 * the local embedder's ranking quality on labelled queries, and registration throughput end to end
 * (registry → JetStream → discovery) for a smaller number of agents.
 */

export type DatabaseKind = 'native-postgres' | 'pglite';

export interface DiscoveryBenchOptions {
  databaseKind: DatabaseKind;
  /** For native PostgreSQL: a URL of the server (a fresh database is created per run). */
  serverUrl?: string;
  sizes: number[];
  registrations: number;
  latencyQueries: number;
  recallQueries: number;
  qualityQueries: number;
  registrationConcurrency: number;
  efSearch: number;
  /** Instead of the full run: build the index with each of these settings and measure recall and SQL latency. */
  tune?: { builds: Array<{ m: number; efConstruction: number }>; efSearch: number[] };
  log: (line: string) => void;
}

export interface TuningRow {
  m: number;
  efConstruction: number;
  buildSeconds: number;
  efSearch: number;
  recallAt10: number;
  recallAt10Unfiltered: number;
  sqlLatency: LatencyStats;
}

export interface LatencyStats {
  p50: number;
  p99: number;
  mean: number;
  count: number;
}

export interface SizeResult {
  agents: number;
  loadSeconds: number;
  embedMsPerCard: number;
  indexBuildSeconds: number;
  natsLatency: LatencyStats;
  sqlLatency: LatencyStats;
  exactSqlLatency: LatencyStats;
  recallAt10: number;
  recallAt10Unfiltered: number;
  recallQueries: number;
  quality: { heldOut: Quality; examplePhrased: Quality };
  tuning?: TuningRow[];
}

export interface Quality {
  top1: number;
  precisionAt10: number;
  queries: number;
}

export interface RegistrationResult {
  agents: number;
  concurrency: number;
  registeredPerSecond: number;
  indexedPerSecond: number;
  registrationLatency: LatencyStats;
}

export interface DiscoveryBenchResult {
  databaseKind: DatabaseKind;
  databaseVersion: string;
  pgvectorVersion: string;
  efSearch: number;
  sizes: SizeResult[];
  registration?: RegistrationResult;
}

const SERVICE_LOGS: LogLevel[] = ['error', 'fatal'];

interface BenchDatabase {
  url: string;
  stop(): Promise<void>;
}

async function freshDatabase(options: DiscoveryBenchOptions, label: string): Promise<BenchDatabase> {
  if (options.databaseKind === 'pglite') return startEmbeddedPostgres();
  const name = `ioa_bench_${label}_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: options.serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(options.serverUrl!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    stop: async () => {
      const cleanup = new pg.Client({ connectionString: options.serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

function useEnvironment(variables: Record<string, string>): void {
  for (const [key, value] of Object.entries(variables)) process.env[key] = value;
}

export function stats(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return {
    p50: at(0.5),
    p99: at(0.99),
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    count: sorted.length,
  };
}

export async function runDiscoveryBench(options: DiscoveryBenchOptions): Promise<DiscoveryBenchResult> {
  const { log } = options;
  const result: DiscoveryBenchResult = {
    databaseKind: options.databaseKind,
    databaseVersion: '',
    pgvectorVersion: '',
    efSearch: options.efSearch,
    sizes: [],
  };
  const largest = Math.max(...options.sizes);
  log(`generating ${largest} agent cards`);
  const generator = new AgentCardGenerator(20_260_101);
  const now = new Date().toISOString();
  const generated = Array.from({ length: largest }, (_, i) => generator.card(i, randomUUID(), now));
  const queryGenerator = new AgentCardGenerator(7);
  const heldOut = queryGenerator.queries(options.qualityQueries);
  const examplePhrased = queryGenerator.exampleQueries(options.qualityQueries);
  const latencyQueries = [
    ...queryGenerator.queries(options.latencyQueries / 2),
    ...queryGenerator.exampleQueries(options.latencyQueries / 2),
  ];

  for (const size of options.sizes) {
    result.sizes.push(
      await benchSize(options, generated.slice(0, size), { heldOut, examplePhrased, latencyQueries }, result),
    );
  }
  if (options.registrations > 0) result.registration = await benchRegistration(options);
  return result;
}

async function benchSize(
  options: DiscoveryBenchOptions,
  cards: ReturnType<AgentCardGenerator['card']>[],
  queries: { heldOut: LabelledQuery[]; examplePhrased: LabelledQuery[]; latencyQueries: LabelledQuery[] },
  result: DiscoveryBenchResult,
): Promise<SizeResult> {
  const { log } = options;
  const size = cards.length;
  const nats = await startNatsServer();
  const database = await freshDatabase(options, `${size}`);
  let service: INestMicroservice | undefined;
  let client: NatsConnection | undefined;
  try {
    useEnvironment({
      NATS_URL: nats.url,
      DATABASE_URL: database.url,
      DISCOVERY_RECONCILE_ON_BOOT: 'false',
      DISCOVERY_HNSW_EF_SEARCH: String(options.efSearch),
      OPENAI_BASE_URL: '',
      OPENAI_API_KEY: '',
      EMBEDDING_DIMENSIONS: '',
    });
    service = await createService(DiscoveryModule, { name: 'discovery', logger: SERVICE_LOGS });
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      const versions = await sql.query<{ version: string; vector: string }>(
        `SELECT version() AS "version", (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS "vector"`,
      );
      result.databaseVersion = versions.rows[0].version.split(' on ')[0];
      result.pgvectorVersion = versions.rows[0].vector;

      // Bulk load: no index while inserting, then one HNSW build (as a migration of an existing table would do).
      log(`[${size}] embedding and inserting ${size} cards`);
      const embedder = new LocalHashEmbedder();
      await sql.query(`DROP INDEX "discovery"."${hnswIndexName(embedder.dimension)}"`);
      const loadStarted = performance.now();
      let embedMs = 0;
      const batch = 250;
      for (let start = 0; start < size; start += batch) {
        const rows = cards.slice(start, start + batch);
        const embedStarted = performance.now();
        const vectors = await embedder.embed(rows.map(({ card }) => cardDocument(card)));
        embedMs += performance.now() - embedStarted;
        const values: unknown[] = [];
        const tuples = rows.map(({ card }, i) => {
          values.push(
            card.id,
            card.name,
            JSON.stringify(card),
            card.status,
            card.revision,
            skillTags(card),
            toVectorLiteral(vectors[i]),
            embedder.model,
            embedder.dimension,
          );
          const p = i * 9;
          return `($${p + 1}, $${p + 2}, $${p + 3}::jsonb, $${p + 4}, $${p + 5}, $${p + 6}::text[], $${p + 7}::vector, $${p + 8}, $${p + 9})`;
        });
        await sql.query(
          `INSERT INTO "discovery"."agent_index" ("agent_id", "name", "card", "status", "revision", "skill_tags", "embedding", "model", "dimension") VALUES ${tuples.join(', ')}`,
          values,
        );
        if ((start / batch) % 40 === 0) log(`[${size}] ${start + rows.length} rows`);
      }
      const loadSeconds = (performance.now() - loadStarted) / 1000;
      log(`[${size}] building the HNSW index (m=${HNSW_M}, ef_construction=${HNSW_EF_CONSTRUCTION})`);
      const indexStarted = performance.now();
      if (options.databaseKind === 'native-postgres') await sql.query(`SET maintenance_work_mem = '1GB'`);
      await sql.query(createHnswIndexSql('discovery', embedder.dimension));
      await sql.query(`ANALYZE "discovery"."agent_index"`);
      const indexBuildSeconds = (performance.now() - indexStarted) / 1000;
      log(`[${size}] index built in ${indexBuildSeconds.toFixed(1)} s`);

      const repository = service.get(AgentSearchRepository);
      const queryVectors = await embedder.embed(queries.latencyQueries.map((query) => query.query));
      const base = { model: embedder.model, dimension: embedder.dimension, limit: 10 };
      const recallVectors = queryVectors.slice(0, options.recallQueries);
      log(`[${size}] exact top-10 of ${recallVectors.length} queries (sequential scans)`);
      const exactSamples: number[] = [];
      const truth = { filtered: [] as Set<string>[], unfiltered: [] as Set<string>[] };
      for (const vector of recallVectors) {
        for (const onlineOnly of [true, false]) {
          const started = performance.now();
          const [exact] = await repository.searchMany([vector], { ...base, efSearch: 10, onlineOnly, exact: true });
          if (onlineOnly) exactSamples.push(performance.now() - started);
          truth[onlineOnly ? 'filtered' : 'unfiltered'].push(new Set(exact.map((hit) => hit.agentId)));
        }
      }
      const measureRecall = async (efSearch: number) => {
        const recall = { filtered: 0, unfiltered: 0 };
        for (const [i, vector] of recallVectors.entries()) {
          for (const onlineOnly of [true, false] as const) {
            const [approximate] = await repository.searchMany([vector], { ...base, efSearch, onlineOnly });
            const expected = truth[onlineOnly ? 'filtered' : 'unfiltered'][i];
            const found = approximate.filter((hit) => expected.has(hit.agentId)).length;
            recall[onlineOnly ? 'filtered' : 'unfiltered'] += found / Math.max(1, expected.size);
          }
        }
        return {
          filtered: recall.filtered / recallVectors.length,
          unfiltered: recall.unfiltered / recallVectors.length,
        };
      };
      // The SQL alone: one transaction with the search settings and one HNSW query (the query already embedded).
      const measureSql = async (efSearch: number) => {
        const samples: number[] = [];
        for (const vector of queryVectors) {
          const started = performance.now();
          await repository.searchMany([vector], { ...base, efSearch, onlineOnly: true });
          samples.push(performance.now() - started);
        }
        return stats(samples);
      };

      if (options.tune) {
        const tuning: TuningRow[] = [];
        for (const build of options.tune.builds) {
          await sql.query(`DROP INDEX "discovery"."${hnswIndexName(embedder.dimension)}"`);
          const started = performance.now();
          await sql.query(
            createHnswIndexSql('discovery', embedder.dimension).replace(
              /WITH \(m = \d+, ef_construction = \d+\)/,
              `WITH (m = ${build.m}, ef_construction = ${build.efConstruction})`,
            ),
          );
          const buildSeconds = (performance.now() - started) / 1000;
          for (const efSearch of options.tune.efSearch) {
            const recall = await measureRecall(efSearch);
            const row = {
              ...build,
              buildSeconds,
              efSearch,
              recallAt10: recall.filtered,
              recallAt10Unfiltered: recall.unfiltered,
              sqlLatency: await measureSql(efSearch),
            };
            tuning.push(row);
            log(
              `[${size}] m=${build.m} ef_construction=${build.efConstruction} (built in ${buildSeconds.toFixed(1)} s) ` +
                `ef_search=${efSearch}: recall@10 ${recall.filtered.toFixed(3)} / ${recall.unfiltered.toFixed(3)}, ` +
                `SQL p50 ${row.sqlLatency.p50.toFixed(2)} ms p99 ${row.sqlLatency.p99.toFixed(2)} ms`,
            );
          }
        }
        const none = stats([0]);
        const zero = { top1: 0, precisionAt10: 0, queries: 0 };
        return {
          agents: size,
          loadSeconds,
          embedMsPerCard: embedMs / size,
          indexBuildSeconds,
          natsLatency: none,
          sqlLatency: none,
          exactSqlLatency: stats(exactSamples),
          recallAt10: 0,
          recallAt10Unfiltered: 0,
          recallQueries: 0,
          quality: { heldOut: zero, examplePhrased: zero },
          tuning,
        };
      }

      // Steady state: the index and the table in memory, as in a service that has been answering for a while.
      log(`[${size}] warming up (one pass over the latency queries)`);
      await measureSql(options.efSearch);

      const labels = new Map(cards.map(({ card, skillKeys }) => [card.id, skillKeys]));
      client = await connectRaw(nats.url);
      const searchOverNats = (request: Partial<SearchAgentsV1Request> & { queries: string[] }) =>
        requestContract(client!, SearchAgentsV1, request as SearchAgentsV1Request, { timeoutMs: 10_000 });

      // Latency through NATS: the full path (validation, embedding, SQL, JSON) as an external agent sees it.
      log(`[${size}] search latency over NATS`);
      for (const query of queries.latencyQueries.slice(0, 50)) await searchOverNats({ queries: [query.query] });
      const natsSamples: number[] = [];
      for (const query of queries.latencyQueries) {
        const started = performance.now();
        await searchOverNats({ queries: [query.query], topK: 10 });
        natsSamples.push(performance.now() - started);
      }

      log(`[${size}] search latency of the SQL alone, and recall@10`);
      const sqlLatency = await measureSql(options.efSearch);
      const recall = await measureRecall(options.efSearch);

      log(`[${size}] ranking quality on labelled queries`);
      const quality = async (labelled: LabelledQuery[]): Promise<Quality> => {
        let top1 = 0;
        let precision = 0;
        for (const query of labelled) {
          const response = await searchOverNats({ queries: [query.query], topK: 10 });
          const hits = response.matches.map((match) => labels.get(match.agent.id)?.includes(query.skillKey) ?? false);
          if (hits[0]) top1 += 1;
          precision += hits.filter(Boolean).length / 10;
        }
        return { top1: top1 / labelled.length, precisionAt10: precision / labelled.length, queries: labelled.length };
      };

      const sizeResult: SizeResult = {
        agents: size,
        loadSeconds,
        embedMsPerCard: embedMs / size,
        indexBuildSeconds,
        natsLatency: stats(natsSamples),
        sqlLatency,
        exactSqlLatency: stats(exactSamples),
        recallAt10: recall.filtered,
        recallAt10Unfiltered: recall.unfiltered,
        recallQueries: recallVectors.length,
        quality: { heldOut: await quality(queries.heldOut), examplePhrased: await quality(queries.examplePhrased) },
      };
      log(
        `[${size}] NATS p50 ${sizeResult.natsLatency.p50.toFixed(2)} ms p99 ${sizeResult.natsLatency.p99.toFixed(2)} ms; ` +
          `SQL p50 ${sizeResult.sqlLatency.p50.toFixed(2)} ms p99 ${sizeResult.sqlLatency.p99.toFixed(2)} ms; ` +
          `recall@10 ${sizeResult.recallAt10.toFixed(3)} (unfiltered ${sizeResult.recallAt10Unfiltered.toFixed(3)})`,
      );
      return sizeResult;
    } finally {
      await sql.end();
    }
  } finally {
    await client?.close();
    await service?.close();
    await database.stop();
    await nats.stop();
  }
}

/**
 * Registration end to end: agents register over NATS with the registry, which stores them and publishes events
 * (outbox → JetStream); discovery consumes, embeds, stores and announces `AgentIndexedV1`. Measured until the last
 * agent is announced.
 */
async function benchRegistration(options: DiscoveryBenchOptions): Promise<RegistrationResult> {
  const { log } = options;
  const total = options.registrations;
  const nats: EmbeddedNats = await startNatsServer();
  const database = await freshDatabase(options, 'registration');
  let discovery: INestMicroservice | undefined;
  let registry: INestMicroservice | undefined;
  let client: NatsConnection | undefined;
  try {
    useEnvironment({ NATS_URL: nats.url, DATABASE_URL: database.url, DISCOVERY_RECONCILE_ON_BOOT: 'true' });
    registry = await createService(RegistryModule, { name: 'registry', logger: SERVICE_LOGS });
    discovery = await createService(DiscoveryModule, { name: 'discovery', logger: SERVICE_LOGS });
    client = await connectRaw(nats.url);
    // Every agent id discovery has announced as indexed (an announcement can beat the registration reply here).
    const announced = new Set<string>();
    client.subscribe(AgentIndexedV1.subject, {
      callback: (error, message) => {
        if (error) return;
        const event = JSON.parse(new TextDecoder().decode(message.data)) as AgentIndexedV1Event;
        if (event.indexed) announced.add(event.agentId);
      },
    });
    await client.flush();

    const generator = new AgentCardGenerator(99_999);
    const registrations = Array.from(
      { length: total },
      (_, i) => generator.agent(i, `bench-owner-${i % 50}`).registration,
    );
    log(`registering ${total} agents through the registry (${options.registrationConcurrency} in flight)`);
    const latencies: number[] = [];
    const ids: string[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: options.registrationConcurrency }, async () => {
        while (next < registrations.length) {
          const registration = registrations[next++];
          const sent = performance.now();
          const reply = await requestContract(client!, RegisterAgentV1, registration, { timeoutMs: 30_000 });
          latencies.push(performance.now() - sent);
          ids.push(reply.agent.id);
        }
      }),
    );
    const registeredSeconds = (performance.now() - started) / 1000;
    await waitUntil(() => ids.every((id) => announced.has(id)), 600_000);
    const indexedSeconds = (performance.now() - started) / 1000;
    log(`registered in ${registeredSeconds.toFixed(1)} s, all indexed after ${indexedSeconds.toFixed(1)} s`);
    return {
      agents: total,
      concurrency: options.registrationConcurrency,
      registeredPerSecond: total / registeredSeconds,
      indexedPerSecond: total / indexedSeconds,
      registrationLatency: stats(latencies),
    };
  } finally {
    await client?.close();
    await discovery?.close();
    await registry?.close();
    await database.stop();
    await nats.stop();
  }
}

function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (condition()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`not indexed within ${timeoutMs} ms`));
      }
    }, 20);
  });
}
