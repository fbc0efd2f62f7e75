import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OwnedWorkEntity, type OwnedWorkKind } from './owned-work.entity.js';

export interface OwnedWork<Payload = unknown> {
  kind: OwnedWorkKind;
  workKey: string;
  scope: string;
  payload: Payload;
  /** Times a replica took it on, this one included. */
  claims: number;
}

interface OwnedWorkRow {
  kind: OwnedWorkKind;
  work_key: string;
  scope: string;
  payload: unknown;
  claims: number;
}

function fromRow(row: OwnedWorkRow): OwnedWork {
  return { kind: row.kind, workKey: row.work_key, scope: row.scope, payload: row.payload, claims: row.claims };
}

const TABLE = '"agent_host"."owned_work"';

/**
 * SQL of the ownership table. Lease times are the database's clock (`now()`), so replicas with skewed clocks agree
 * on whose lease has run out.
 */
@Injectable()
export class OwnedWorkRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records the work as owned by `ownerId` (one statement, so one transaction). False when it is already owned
   * (a redelivered grant or a retried dispatch): whoever holds it does it.
   */
  async own(work: Omit<OwnedWork, 'claims'>, ownerId: string, leaseMs: number): Promise<boolean> {
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO ${TABLE} ("kind", "work_key", "scope", "payload", "owner_id", "lease_expires_at")
       VALUES ($1, $2, $3, $4::jsonb, $5, now() + $6 * interval '1 millisecond')
       ON CONFLICT ("kind", "work_key") DO NOTHING
       RETURNING "work_key"`,
      [work.kind, work.workKey, work.scope, JSON.stringify(work.payload), ownerId, leaseMs],
    );
    return inserted.length === 1;
  }

  /** Extends the leases of everything `ownerId` holds. */
  async renew(ownerId: string, leaseMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${TABLE} SET "lease_expires_at" = now() + $2 * interval '1 millisecond' WHERE "owner_id" = $1`,
      [ownerId, leaseMs],
    );
  }

  /**
   * Takes over work in `scopes` whose lease ran out, and with `includeOwn` (right after boot) what `ownerId` itself
   * held before a restart, so a stable instance id gets its work back at once. SKIP LOCKED: replicas sweeping
   * together never take the same row.
   */
  async claim(
    ownerId: string,
    kind: OwnedWorkKind,
    scopes: string[],
    options: { leaseMs: number; limit: number; includeOwn: boolean },
  ): Promise<OwnedWork[]> {
    if (scopes.length === 0) return [];
    // TypeORM answers an UPDATE with [rows, affected count].
    const [rows]: [OwnedWorkRow[], number] = await this.dataSource.query(
      `UPDATE ${TABLE} AS work
         SET "owner_id" = $1, "lease_expires_at" = now() + $3 * interval '1 millisecond', "claims" = work."claims" + 1
       WHERE (work."kind", work."work_key") IN (
         SELECT "kind", "work_key" FROM ${TABLE}
         WHERE "kind" = $6 AND "scope" = ANY($2) AND ("lease_expires_at" < now() OR ($5 AND "owner_id" = $1))
         ORDER BY "accepted_at"
         LIMIT $4
         FOR UPDATE SKIP LOCKED)
       RETURNING work."kind", work."work_key", work."scope", work."payload", work."claims"`,
      [ownerId, scopes, options.leaseMs, options.limit, options.includeOwn, kind],
    );
    return rows.map(fromRow);
  }

  /** Ends the lease now: the next sweep of any replica takes the work on. */
  async expire(kind: OwnedWorkKind, workKey: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${TABLE} SET "lease_expires_at" = now() WHERE "kind" = $1 AND "work_key" = $2`,
      [kind, workKey],
    );
  }

  /** Ends the leases of everything `ownerId` holds (a graceful stop hands its work over at once). */
  async expireAllOf(ownerId: string): Promise<void> {
    await this.dataSource.query(`UPDATE ${TABLE} SET "lease_expires_at" = now() WHERE "owner_id" = $1`, [ownerId]);
  }

  /** The work is finished (or abandoned on purpose): nobody resumes it. */
  async release(kind: OwnedWorkKind, workKey: string): Promise<void> {
    await this.dataSource.getRepository(OwnedWorkEntity).delete({ kind, workKey });
  }
}
