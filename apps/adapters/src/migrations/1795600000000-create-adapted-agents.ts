import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The adapters service's tables. Frozen history: the schema name and SQL are spelled out. */
export class CreateAdaptedAgents1795600000000 implements MigrationInterface {
  name = 'CreateAdaptedAgents1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "adapters"."adapted_agents" (
        "id" uuid NOT NULL,
        "name" varchar(63) NOT NULL,
        "owner" varchar(200) NOT NULL,
        "kind" varchar(16) NOT NULL,
        "url" text NOT NULL,
        "settings" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "secret" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "adapted_agents_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "adapted_agents_kind_check" CHECK ("kind" IN ('a2a', 'mcp', 'openai', 'http'))
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "adapted_agents_name_key" ON "adapters"."adapted_agents" ("name")`);
    await queryRunner.query(`
      CREATE TABLE "adapters"."webhook_tasks" (
        "task_id" uuid NOT NULL,
        "agent_id" uuid NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz,
        CONSTRAINT "webhook_tasks_pkey" PRIMARY KEY ("task_id")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "adapters"."webhook_tasks"`);
    await queryRunner.query(`DROP TABLE "adapters"."adapted_agents"`);
  }
}
