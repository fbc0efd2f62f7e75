import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Work agent-host has accepted and not finished (tasks and turns), with the replica that holds it and until when.
 * A task or a turn grant is acknowledged only once its row is committed, so a crash loses nothing: the row outlives
 * the process and a replica (or the restarted one) takes it over when the lease runs out.
 */
export class CreateOwnedWork1795600000000 implements MigrationInterface {
  name = 'CreateOwnedWork1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "agent_host"."owned_work" (
        "kind" text NOT NULL CHECK ("kind" IN ('task', 'turn')),
        "work_key" text NOT NULL,
        "scope" text NOT NULL,
        "payload" jsonb NOT NULL,
        "owner_id" text NOT NULL,
        "lease_expires_at" timestamptz NOT NULL,
        "claims" integer NOT NULL DEFAULT 1,
        "accepted_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("kind", "work_key")
      )`);
    await queryRunner.query(
      `CREATE INDEX "owned_work_lease_idx" ON "agent_host"."owned_work" ("scope", "lease_expires_at")`,
    );
    await queryRunner.query(`CREATE INDEX "owned_work_owner_idx" ON "agent_host"."owned_work" ("owner_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "agent_host"."owned_work"`);
  }
}
