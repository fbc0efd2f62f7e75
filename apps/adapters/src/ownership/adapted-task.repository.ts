import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { TaskAssignmentV1Request } from '@ioa/contracts';
import type { TaskCheckpoint } from '../tasks/endpoint-runner.js';

/** A task this service accepted and has not finished, as a replica takes it over. */
export interface OwnedTask {
  assignment: TaskAssignmentV1Request;
  checkpoint: TaskCheckpoint;
  /** Times a replica took it on, the first acceptance included. */
  claims: number;
}

interface OwnedTaskRow {
  assignment: TaskAssignmentV1Request;
  checkpoint: TaskCheckpoint;
  claims: number;
}

const TABLE = '"adapters"."adapted_tasks"';

/**
 * SQL of `adapters.adapted_tasks`. Lease times are the database's clock (`now()`), so replicas with skewed clocks
 * agree on whose lease has run out.
 */
@Injectable()
export class AdaptedTaskRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the task as owned by `ownerId`; false when it already is (a dispatch retried after a lost ack). */
  async own(assignment: TaskAssignmentV1Request, ownerId: string, leaseMs: number): Promise<boolean> {
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO ${TABLE} ("task_id", "agent_id", "assignment", "owner_id", "lease_expires_at")
       VALUES ($1, $2, $3::jsonb, $4, now() + $5 * interval '1 millisecond')
       ON CONFLICT ("task_id") DO NOTHING
       RETURNING "task_id"`,
      [assignment.taskId, assignment.agentId, JSON.stringify(assignment), ownerId, leaseMs],
    );
    return inserted.length === 1;
  }

  /** Records how far the remote work got, for whoever resumes it. */
  async checkpoint(taskId: string, checkpoint: TaskCheckpoint): Promise<void> {
    await this.dataSource.query(`UPDATE ${TABLE} SET "checkpoint" = $2::jsonb WHERE "task_id" = $1`, [
      taskId,
      JSON.stringify(checkpoint),
    ]);
  }

  async renew(ownerId: string, leaseMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${TABLE} SET "lease_expires_at" = now() + $2 * interval '1 millisecond' WHERE "owner_id" = $1`,
      [ownerId, leaseMs],
    );
  }

  /**
   * Takes over tasks whose lease ran out, and with `includeOwn` (right after boot) what `ownerId` itself held before
   * a restart. SKIP LOCKED: replicas sweeping together never take the same row.
   */
  async claim(ownerId: string, options: { leaseMs: number; limit: number; includeOwn: boolean }): Promise<OwnedTask[]> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [rows]: [OwnedTaskRow[], number] = await this.dataSource.query(
      `UPDATE ${TABLE} AS task
         SET "owner_id" = $1, "lease_expires_at" = now() + $2 * interval '1 millisecond', "claims" = task."claims" + 1
       WHERE task."task_id" IN (
         SELECT "task_id" FROM ${TABLE}
         WHERE "lease_expires_at" < now() OR ($4 AND "owner_id" = $1)
         ORDER BY "accepted_at"
         LIMIT $3
         FOR UPDATE SKIP LOCKED)
       RETURNING task."assignment", task."checkpoint", task."claims"`,
      [ownerId, options.leaseMs, options.limit, options.includeOwn],
    );
    return rows.map((row) => ({ assignment: row.assignment, checkpoint: row.checkpoint, claims: row.claims }));
  }

  /** Ends the task's lease now: the next sweep of any replica takes it on. */
  async expire(taskId: string): Promise<void> {
    await this.dataSource.query(`UPDATE ${TABLE} SET "lease_expires_at" = now() WHERE "task_id" = $1`, [taskId]);
  }

  /** Ends the leases of everything `ownerId` holds (a graceful stop hands its tasks over at once). */
  async expireAllOf(ownerId: string): Promise<void> {
    await this.dataSource.query(`UPDATE ${TABLE} SET "lease_expires_at" = now() WHERE "owner_id" = $1`, [ownerId]);
  }

  /** The task is finished, canceled or handed to a webhook's callback: nobody resumes it. */
  async release(taskId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${TABLE} WHERE "task_id" = $1`, [taskId]);
  }
}
