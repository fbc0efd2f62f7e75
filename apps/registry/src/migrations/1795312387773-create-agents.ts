import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agents table. Migrations are frozen history: they spell out the schema name and SQL instead of importing
 * anything that may change later.
 */
export class CreateAgents1795312387773 implements MigrationInterface {
  name = 'CreateAgents1795312387773';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "registry"."agents" (
        "id" uuid NOT NULL,
        "name" varchar(63) NOT NULL,
        "description" text NOT NULL,
        "skills" jsonb NOT NULL,
        "default_input_modes" jsonb NOT NULL,
        "default_output_modes" jsonb NOT NULL,
        "owner" varchar(200) NOT NULL,
        "endpoint" jsonb NOT NULL,
        "version" varchar(40) NOT NULL,
        "provider" jsonb,
        "documentation_url" text,
        "metadata" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "status" varchar(16) NOT NULL,
        "revision" integer NOT NULL,
        "registered_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL,
        "last_seen_at" timestamptz NOT NULL,
        CONSTRAINT "agents_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "agents_status_check" CHECK ("status" IN ('online', 'offline')),
        CONSTRAINT "agents_revision_check" CHECK ("revision" >= 1)
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "agents_name_key" ON "registry"."agents" ("name")`);
    await queryRunner.query(`CREATE INDEX "agents_owner_idx" ON "registry"."agents" ("owner")`);
    // Listing pages through agents newest registration first.
    await queryRunner.query(
      `CREATE INDEX "agents_registered_at_idx" ON "registry"."agents" ("registered_at" DESC, "id" DESC)`,
    );
    // The presence sweeper only ever looks at online agents, oldest heartbeat first.
    await queryRunner.query(
      `CREATE INDEX "agents_online_last_seen_idx" ON "registry"."agents" ("last_seen_at") WHERE "status" = 'online'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "registry"."agents"`);
  }
}
