import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The A2A task store: the table `@a2a-js/sdk`'s `DatabaseTaskStore` reads and writes (its own `a2a-db` migration
 * creates the same columns and indexes). Ids are wider than the SDK's 36 characters, so a client's own (longer)
 * context id is stored rather than refused. Migrations are frozen history: schema name and SQL spelled out.
 */
export class CreateA2aTasks1795500000000 implements MigrationInterface {
  name = 'CreateA2aTasks1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "gateway"."a2a_tasks" (
        "tenant" varchar(255) COLLATE "C" NOT NULL,
        "owner" varchar(255) COLLATE "C" NOT NULL,
        "id" varchar(255) COLLATE "C" NOT NULL,
        "context_id" varchar(255) COLLATE "C" NOT NULL,
        "status_last_updated" bigint NOT NULL,
        "status_state" varchar(255) COLLATE "C",
        "status" text,
        "artifacts" text,
        "history" text,
        "metadata" text,
        "protocol_version" varchar(255),
        CONSTRAINT "a2a_tasks_pkey" PRIMARY KEY ("tenant", "owner", "id")
      )`);
    // ListTasks: newest first, for a caller, optionally within one context.
    await queryRunner.query(
      `CREATE INDEX "a2a_tasks_scope_updated_idx" ON "gateway"."a2a_tasks" ("tenant", "owner", "status_last_updated", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "a2a_tasks_scope_context_updated_idx" ON "gateway"."a2a_tasks" ("tenant", "owner", "context_id", "status_last_updated", "id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway"."a2a_tasks"`);
  }
}
