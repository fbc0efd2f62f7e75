import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource, type QueryRunner } from 'typeorm';
import type { AgentCardV1 } from '@ioa/contracts';
import { DISCOVERY_SCHEMA } from '../indexing/agent-index.repository.js';
import { toVectorLiteral } from '../indexing/card-document.js';
import { assertDimension } from '../indexing/hnsw-index.js';

export interface VectorSearchOptions {
  /** Vectors of this model and dimension are compared; rows of another model are not in the same space. */
  model: string;
  dimension: number;
  limit: number;
  onlineOnly: boolean;
  /** Lowercased; an agent matches when one of its skills has one of them. */
  tags?: string[];
  excludeIds?: string[];
  /** HNSW candidate list size (`hnsw.ef_search`): larger is slower and finds more of the true neighbours. */
  efSearch: number;
  /** Exact nearest neighbours, without the index: the reference for recall, and the fallback described below. */
  exact?: boolean;
}

export interface VectorHit {
  agentId: string;
  card: AgentCardV1;
  /** 1 - cosine distance, i.e. cosine similarity. */
  score: number;
}

const TABLE = `"${DISCOVERY_SCHEMA}"."agent_index"`;

/**
 * Nearest-neighbour queries on the agent index.
 *
 * Filters and HNSW: an HNSW scan yields the `ef_search` nearest candidates and *then* the filters apply, so a
 * filter that rejects many candidates (offline agents, a rare tag, a long exclusion list) can leave fewer than
 * `limit` rows although more agents match. pgvector 0.8 fixes this with iterative index scans
 * (`hnsw.iterative_scan = relaxed_order`: keep scanning until enough rows pass the filters; the order may be
 * slightly relaxed, so callers re-sort). Both the embedded PGlite (pgvector 0.8.x) and the native PostgreSQL that
 * `deploy/local/native-postgres.sh` builds have it. With an older pgvector, a filtered query that comes back short
 * is re-run exactly (sequential scan), which is correct and, for short results, not much slower.
 */
@Injectable()
export class AgentSearchRepository implements OnModuleInit {
  private readonly logger = new Logger(AgentSearchRepository.name);
  private iterativeScan = false;

  constructor(private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    const rows: Array<{ version: string | null }> = await this.dataSource.query(
      `SELECT extversion AS "version" FROM pg_extension WHERE extname = 'vector'`,
    );
    const version = rows[0]?.version ?? '0';
    const [major, minor] = version.split('.').map(Number);
    this.iterativeScan = major > 0 || minor >= 8;
    if (!this.iterativeScan) {
      this.logger.warn(
        `pgvector ${version} has no iterative index scans: filtered searches may fall back to exact scans`,
      );
    }
  }

  get supportsIterativeScan(): boolean {
    return this.iterativeScan;
  }

  /** One result list per vector, nearest first, all in one transaction (the search settings are transaction-local). */
  async searchMany(vectors: number[][], options: VectorSearchOptions): Promise<VectorHit[][]> {
    assertDimension(options.dimension);
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await this.configure(runner, options, options.exact ?? false);
      const results: VectorHit[][] = [];
      for (const vector of vectors) {
        // A zero vector (a query of stop words only) has no direction: cosine distance is undefined for it.
        if (vector.every((value) => value === 0)) {
          results.push([]);
          continue;
        }
        let hits = await this.nearest(runner, vector, options);
        if (!this.iterativeScan && !options.exact && hits.length < options.limit && this.isFiltered(options)) {
          await this.configure(runner, options, true);
          hits = await this.nearest(runner, vector, options);
          await this.configure(runner, options, false);
        }
        results.push(hits);
      }
      await runner.commitTransaction();
      return results;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw error;
    } finally {
      await runner.release();
    }
  }

  private isFiltered(options: VectorSearchOptions): boolean {
    return options.onlineOnly || (options.tags?.length ?? 0) > 0 || (options.excludeIds?.length ?? 0) > 0;
  }

  private async configure(runner: QueryRunner, options: VectorSearchOptions, exact: boolean): Promise<void> {
    const settings: Array<[string, string]> = [
      ['hnsw.ef_search', String(Math.max(1, Math.min(1000, Math.round(options.efSearch))))],
      ['enable_indexscan', exact ? 'off' : 'on'],
    ];
    if (this.iterativeScan) settings.push(['hnsw.iterative_scan', 'relaxed_order']);
    const calls = settings.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ');
    await runner.query(`SELECT ${calls}`, settings.flat());
  }

  private async nearest(runner: QueryRunner, vector: number[], options: VectorSearchOptions): Promise<VectorHit[]> {
    const dimension = options.dimension;
    // The expression and the predicate match the partial HNSW index of this dimension exactly (see hnsw-index.ts).
    const distance = `"embedding"::vector(${dimension}) <=> $1::vector(${dimension})`;
    const parameters: unknown[] = [toVectorLiteral(vector), options.model, options.limit];
    const conditions = [`"dimension" = ${dimension}`, `"model" = $2`];
    if (options.onlineOnly) conditions.push(`"status" = 'online'`);
    if (options.tags && options.tags.length > 0) {
      parameters.push(options.tags);
      conditions.push(`"skill_tags" && $${parameters.length}::text[]`);
    }
    if (options.excludeIds && options.excludeIds.length > 0) {
      parameters.push(options.excludeIds);
      conditions.push(`NOT ("agent_id" = ANY($${parameters.length}::uuid[]))`);
    }
    const rows = (await runner.query(
      `SELECT "agent_id" AS "agentId", "card", ${distance} AS "distance" FROM ${TABLE}
       WHERE ${conditions.join(' AND ')} ORDER BY ${distance} LIMIT $3`,
      parameters,
    )) as Array<{ agentId: string; card: AgentCardV1; distance: number }>;
    return rows.map((row) => ({ agentId: row.agentId, card: row.card, score: 1 - Number(row.distance) }));
  }
}
