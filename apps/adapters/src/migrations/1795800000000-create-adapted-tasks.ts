import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tasks the adapters service has accepted and not finished, with what it learned of the remote work so far (the A2A
 * task and context ids, the MCP tool calls already made), the replica that holds each and until when. A task is
 * acknowledged only once its row is committed, so a crash loses nothing: the restarted replica (same instance id)
 * or another one takes the row over when its lease runs out and resumes the work. Frozen history: SQL spelled out.
 */
export class CreateAdaptedTasks1795800000000 implements MigrationInterface {
  name = 'CreateAdaptedTasks1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "adapters"."adapted_tasks" (
        "task_id" uuid NOT NULL,
        "agent_id" uuid NOT NULL,
        "assignment" jsonb NOT NULL,
        "checkpoint" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "owner_id" text NOT NULL,
        "lease_expires_at" timestamptz NOT NULL,
        "claims" integer NOT NULL DEFAULT 1,
        "accepted_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "adapted_tasks_pkey" PRIMARY KEY ("task_id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "adapted_tasks_lease_idx" ON "adapters"."adapted_tasks" ("lease_expires_at")`,
    );
    await queryRunner.query(`CREATE INDEX "adapted_tasks_owner_idx" ON "adapters"."adapted_tasks" ("owner_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "adapters"."adapted_tasks"`);
  }
}
