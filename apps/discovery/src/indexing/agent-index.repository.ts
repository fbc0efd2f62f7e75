import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AgentCardV1, AgentStatus } from '@ioa/contracts';
import { toVectorLiteral } from './card-document.js';

/** The PostgreSQL schema discovery owns. */
export const DISCOVERY_SCHEMA = 'discovery';
const TABLE = `"${DISCOVERY_SCHEMA}"."agent_index"`;
const TOMBSTONES = `"${DISCOVERY_SCHEMA}"."removed_agent"`;

export interface IndexedRow {
  agentId: string;
  revision: number;
  status: AgentStatus;
  model: string;
  dimension: number;
  updatedAt: Date;
}

export interface CardToStore {
  card: AgentCardV1;
  skillTags: string[];
  embedding: number[];
  model: string;
  dimension: number;
}

/** Where an incoming revision stands against what the index holds. */
export type RevisionCheck = 'newer' | 'current' | 'stale';

/**
 * SQL of the agent index. Every write is guarded so that events may arrive late, twice or out of order (replicas,
 * redelivery, the boot-time reconciliation racing the event stream) without the index going backwards.
 */
@Injectable()
export class AgentIndexRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Compares a revision with the stored one and with the agent's tombstone, before paying for an embedding. */
  async checkRevision(agentId: string, revision: number): Promise<RevisionCheck> {
    const rows: Array<{ stored: number | null; removed: number | null }> = await this.dataSource.query(
      `SELECT (SELECT "revision" FROM ${TABLE} WHERE "agent_id" = $1) AS "stored",
              (SELECT "revision" FROM ${TOMBSTONES} WHERE "agent_id" = $1) AS "removed"`,
      [agentId],
    );
    const { stored, removed } = rows[0];
    if (removed !== null && removed >= revision) return 'stale';
    if (stored === null || stored < revision) return 'newer';
    return stored === revision ? 'current' : 'stale';
  }

  /**
   * Inserts or replaces an agent's row, unless the index already has this or a later revision, or the agent was
   * deregistered at this revision or later. Returns whether the row was written.
   */
  async upsert(entry: CardToStore): Promise<boolean> {
    const { card } = entry;
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO ${TABLE} AS current
         ("agent_id", "name", "card", "status", "revision", "skill_tags", "embedding", "model", "dimension", "updated_at")
       SELECT $1, $2, $3::jsonb, $4, $5, $6::text[], $7::vector, $8, $9, clock_timestamp()
       WHERE NOT EXISTS (SELECT 1 FROM ${TOMBSTONES} WHERE "agent_id" = $1 AND "revision" >= $5)
       ON CONFLICT ("agent_id") DO UPDATE SET
         "name" = EXCLUDED."name", "card" = EXCLUDED."card", "status" = EXCLUDED."status",
         "revision" = EXCLUDED."revision", "skill_tags" = EXCLUDED."skill_tags", "embedding" = EXCLUDED."embedding",
         "model" = EXCLUDED."model", "dimension" = EXCLUDED."dimension", "updated_at" = EXCLUDED."updated_at"
       WHERE current."revision" < EXCLUDED."revision"
       RETURNING "agent_id"`,
      [
        card.id,
        card.name,
        JSON.stringify(card),
        card.status,
        card.revision,
        entry.skillTags,
        toVectorLiteral(entry.embedding),
        entry.model,
        entry.dimension,
      ],
    );
    return rows.length > 0;
  }

  /**
   * Presence only: the card and its embedding stay. A presence event older than the card's last-seen time is
   * ignored (presence carries no revision; the last-seen time orders it). Returns the row's revision and model
   * when it changed, undefined when the agent is not indexed or the event is stale.
   */
  async updateStatus(
    agentId: string,
    status: AgentStatus,
    lastSeenAt: string,
  ): Promise<{ revision: number; model: string } | undefined> {
    const rows: Array<{ revision: number; model: string }> = await this.dataSource.query(
      `UPDATE ${TABLE} SET
         "status" = $2,
         "card" = jsonb_set(jsonb_set("card", '{status}', to_jsonb($2::text)), '{lastSeenAt}', to_jsonb($3::text)),
         "updated_at" = clock_timestamp()
       WHERE "agent_id" = $1
         AND ("card"->>'lastSeenAt' IS NULL OR ("card"->>'lastSeenAt')::timestamptz <= $3::timestamptz)
       RETURNING "revision", "model"`,
      [agentId, status, lastSeenAt],
    );
    return rows[0];
  }

  /**
   * The registry has the agent now, registered at `registeredAt`: a row of another registration of the same id, and
   * the tombstone of an earlier removal, no longer describe it.
   */
  async forgetOtherIncarnations(agentId: string, registeredAt: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`DELETE FROM ${TOMBSTONES} WHERE "agent_id" = $1`, [agentId]);
      await manager.query(
        `DELETE FROM ${TABLE} WHERE "agent_id" = $1 AND ("card"->>'registeredAt') IS DISTINCT FROM $2`,
        [agentId, registeredAt],
      );
    });
  }

  /** Removes an agent and leaves a tombstone at `revision`. Returns whether a row was deleted. */
  async remove(agentId: string, revision: number): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO ${TOMBSTONES} ("agent_id", "revision") VALUES ($1, $2)
         ON CONFLICT ("agent_id") DO UPDATE SET "revision" = GREATEST(${TOMBSTONES}."revision", EXCLUDED."revision"),
           "removed_at" = now()`,
        [agentId, revision],
      );
      const deleted: unknown[] = await manager.query(
        `DELETE FROM ${TABLE} WHERE "agent_id" = $1 AND "revision" <= $2 RETURNING "agent_id"`,
        [agentId, revision],
      );
      return deleted.length > 0;
    });
  }

  /** Rows whose vector was made by another model (or at another dimension) than `model`/`dimension`. */
  async findOutdated(
    model: string,
    dimension: number,
    limit: number,
  ): Promise<Array<{ agentId: string; revision: number; card: AgentCardV1 }>> {
    return this.dataSource.query(
      `SELECT "agent_id" AS "agentId", "revision", "card" FROM ${TABLE}
       WHERE "model" <> $1 OR "dimension" <> $2 ORDER BY "agent_id" LIMIT $3`,
      [model, dimension, limit],
    );
  }

  /** Replaces an agent's vector if the row still holds `revision` (a newer event wins over a re-embedding). */
  async replaceEmbedding(
    agentId: string,
    revision: number,
    embedding: number[],
    model: string,
    dimension: number,
  ): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `UPDATE ${TABLE} SET "embedding" = $3::vector, "model" = $4, "dimension" = $5, "updated_at" = clock_timestamp()
       WHERE "agent_id" = $1 AND "revision" = $2 RETURNING "agent_id"`,
      [agentId, revision, toVectorLiteral(embedding), model, dimension],
    );
    return rows.length > 0;
  }

  async findAll(): Promise<IndexedRow[]> {
    return this.dataSource.query(
      `SELECT "agent_id" AS "agentId", "revision", "status", "model", "dimension", "updated_at" AS "updatedAt"
       FROM ${TABLE}`,
    );
  }

  async find(agentId: string): Promise<(IndexedRow & { card: AgentCardV1 }) | undefined> {
    const rows: Array<IndexedRow & { card: AgentCardV1 }> = await this.dataSource.query(
      `SELECT "agent_id" AS "agentId", "revision", "status", "model", "dimension", "updated_at" AS "updatedAt", "card"
       FROM ${TABLE} WHERE "agent_id" = $1`,
      [agentId],
    );
    return rows[0];
  }

  /**
   * Sets an agent's presence from a registry snapshot, unless an event touched the row after the snapshot was
   * taken (the event is newer than the snapshot).
   */
  async applySnapshotStatus(agentId: string, status: AgentStatus, snapshotTakenAt: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `UPDATE ${TABLE} SET "status" = $2, "card" = jsonb_set("card", '{status}', to_jsonb($2::text)),
         "updated_at" = clock_timestamp()
       WHERE "agent_id" = $1 AND "status" <> $2 AND "updated_at" < $3 RETURNING "agent_id"`,
      [agentId, status, snapshotTakenAt],
    );
    return rows.length > 0;
  }

  /**
   * Deletes agents the registry no longer has, sparing rows written after the snapshot was taken (they came from
   * events newer than the snapshot). Returns the deleted ids.
   */
  async removeAbsent(presentIds: string[], snapshotTakenAt: Date): Promise<string[]> {
    const rows: Array<{ agentId: string }> = await this.dataSource.query(
      `DELETE FROM ${TABLE} WHERE NOT ("agent_id" = ANY($1::uuid[])) AND "updated_at" < $2
       RETURNING "agent_id" AS "agentId"`,
      [presentIds, snapshotTakenAt],
    );
    return rows.map((row) => row.agentId);
  }

  /** Dimensions that still have rows, and the per-dimension HNSW indexes that exist. */
  async dimensionsInUse(): Promise<number[]> {
    const rows: Array<{ dimension: number }> = await this.dataSource.query(`SELECT DISTINCT "dimension" FROM ${TABLE}`);
    return rows.map((row) => row.dimension);
  }

  async indexNames(): Promise<string[]> {
    const rows: Array<{ indexname: string }> = await this.dataSource.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'agent_index'`,
      [DISCOVERY_SCHEMA],
    );
    return rows.map((row) => row.indexname);
  }

  /** The database's clock: snapshot times are compared with `updated_at`, which the database writes. */
  async now(): Promise<Date> {
    const rows: Array<{ now: Date }> = await this.dataSource.query('SELECT clock_timestamp() AS "now"');
    return rows[0].now;
  }

  async execute(sql: string): Promise<void> {
    await this.dataSource.query(sql);
  }
}
