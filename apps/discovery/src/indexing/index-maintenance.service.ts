import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import pRetry from 'p-retry';
import { ContractError, ListAgentsV1 } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { discoveryConfig } from '../discovery.config.js';
import { EMBEDDER, type Embedder } from '@ioa/embeddings';
import { AgentIndexRepository, DISCOVERY_SCHEMA } from './agent-index.repository.js';
import { AgentIndexService } from './agent-index.service.js';
import { cardDocument } from './card-document.js';
import { createHnswIndexSql, HNSW_INDEX_NAME_PATTERN, hnswIndexName } from './hnsw-index.js';

const REEMBED_BATCH = 128;
/** Registry pages stay well under NATS's default 1 MiB message limit (a card is a few KB at most). */
const RECONCILE_PAGE = 100;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/**
 * Boot-time upkeep, run in the background so that the service answers searches at once:
 * 1. make sure the HNSW index for the configured dimension exists;
 * 2. re-embed rows made by another model or at another dimension (a change of `EMBEDDING_MODEL` /
 *    `EMBEDDING_DIMENSIONS`, or of the local embedder's recipe), then drop indexes of dimensions no longer used.
 *    Searches only compare vectors of the current model, so while this runs they see the rows done so far;
 * 3. reconcile with the registry (page through `ListAgentsV1`), so that an event lost before it reached the
 *    stream, or a wiped index, cannot leave discovery wrong for good. If the registry is not up, it retries with
 *    backoff for as long as the service runs; the event stream keeps the index current meanwhile.
 */
@Injectable()
export class IndexMaintenanceService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IndexMaintenanceService.name);
  private stopped = false;
  /** Aborted at shutdown: ends a retry's wait at once. */
  private readonly stopping = new AbortController();
  private reembedding: Promise<void> = Promise.resolve();
  private reconciling: Promise<void> = Promise.resolve();

  constructor(
    private readonly repository: AgentIndexRepository,
    private readonly index: AgentIndexService,
    private readonly client: ContractClient,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(discoveryConfig.KEY) private readonly config: ConfigType<typeof discoveryConfig>,
  ) {}

  onApplicationBootstrap(): void {
    this.reembedding = this.retrying('index upkeep', () => this.upkeepIndex());
    if (this.config.reconcileOnBoot) {
      this.reconciling = this.reembedding.then(() =>
        this.retrying('reconciliation with the registry', () => this.reconcile()),
      );
    }
  }

  /** Resolves once the index has the configured dimension's HNSW index and no outdated vectors. */
  whenReembedded(): Promise<void> {
    return this.reembedding;
  }

  /** Resolves once a reconciliation with the registry has completed (or the service stopped trying). */
  whenReconciled(): Promise<void> {
    return this.reconciling;
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.stopping.abort();
  }

  async upkeepIndex(): Promise<void> {
    const { model, dimension } = this.embedder;
    await this.createIndexIfMissing(dimension);
    let reembedded = 0;
    while (!this.stopped) {
      const rows = await this.repository.findOutdated(model, dimension, REEMBED_BATCH);
      if (rows.length === 0) break;
      const vectors = await this.embedder.embed(rows.map((row) => cardDocument(row.card)));
      for (const [i, row] of rows.entries()) {
        await this.repository.replaceEmbedding(row.agentId, row.revision, vectors[i], model, dimension);
      }
      reembedded += rows.length;
    }
    if (reembedded > 0) this.logger.log(`Re-embedded ${reembedded} agents with ${model} (${dimension} dimensions)`);
    await this.dropUnusedIndexes(dimension);
  }

  private async createIndexIfMissing(dimension: number): Promise<void> {
    try {
      await this.repository.execute(createHnswIndexSql(DISCOVERY_SCHEMA, dimension));
    } catch (error) {
      // Two replicas booting together may race on the same CREATE INDEX; the loser finds it built.
      if (!(await this.repository.indexNames()).some((name) => name === hnswIndexName(dimension))) {
        throw error;
      }
    }
  }

  private async dropUnusedIndexes(current: number): Promise<void> {
    const inUse = new Set(await this.repository.dimensionsInUse());
    for (const name of await this.repository.indexNames()) {
      const dimension = Number(HNSW_INDEX_NAME_PATTERN.exec(name)?.[1]);
      if (Number.isNaN(dimension) || dimension === current || inUse.has(dimension)) continue;
      await this.repository.execute(`DROP INDEX IF EXISTS "${DISCOVERY_SCHEMA}"."${name}"`);
      this.logger.log(`Dropped ${name}: no vector of ${dimension} dimensions is left`);
    }
  }

  /**
   * Brings the index in line with a registry snapshot. Pages are read newest-first by offset, so a registration
   * or removal while paging shifts them; a snapshot whose total changed while paging is therefore not trusted for
   * deletions (a shifted page could hide an agent) and is taken again.
   */
  async reconcile(): Promise<void> {
    const takenAt = await this.repository.now();
    const present = new Set<string>();
    let total: number | undefined;
    let consistent = true;
    let changed = 0;
    for (let offset = 0; !this.stopped; offset += RECONCILE_PAGE) {
      const page = await this.client.request(ListAgentsV1, { limit: RECONCILE_PAGE, offset });
      if (total !== undefined && page.total !== total) consistent = false;
      total ??= page.total;
      for (const card of page.items) {
        present.add(card.id);
        if ((await this.index.applySnapshot(card, takenAt)) === 'indexed') changed += 1;
      }
      if (page.items.length < RECONCILE_PAGE) break;
    }
    if (this.stopped) return;
    if (!consistent || present.size !== total) {
      throw new ContractError('UNAVAILABLE', 'The registry changed while it was being listed; listing again');
    }
    let removed = 0;
    for (const row of await this.repository.findAll()) {
      if (present.has(row.agentId) || row.updatedAt >= takenAt) continue;
      if (await this.repository.remove(row.agentId, row.revision)) {
        await this.index.announce(row.agentId, row.revision, false);
        removed += 1;
      }
    }
    this.logger.log(`Reconciled with the registry: ${present.size} agents, ${changed} updated, ${removed} removed`);
  }

  /** Runs `work` until it succeeds or the service stops, waiting longer after each failure (up to 30 s). */
  private async retrying(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await pRetry(work, {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: RETRY_MIN_MS,
        maxTimeout: RETRY_MAX_MS,
        factor: 2,
        signal: this.stopping.signal,
        // A wait between attempts must not keep a stopping process alive.
        unref: true,
        onFailedAttempt: ({ error, attemptNumber, retryDelay }) => {
          if (this.stopped) return;
          const log = attemptNumber === 1 ? 'warn' : 'debug';
          this.logger[log](`${what} failed (${error.message}); retrying in ${retryDelay} ms`);
        },
      });
    } catch (error) {
      if (this.stopped) return;
      throw error;
    }
  }
}
