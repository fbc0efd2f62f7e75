import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chat's tables: groups (the state machine's fields), members, messages (gap-free per-group seq), the task
 * ledger and the event outbox. Migrations are frozen history: they spell out the schema name and SQL instead of
 * importing anything that may change later.
 */
export class CreateChat1795400000000 implements MigrationInterface {
  name = 'CreateChat1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "chat"."groups" (
        "id" uuid NOT NULL,
        "goal_id" uuid NOT NULL,
        "goal" text NOT NULL,
        "state" varchar(32) NOT NULL,
        "leader_id" uuid NOT NULL,
        "current_speaker" varchar(64),
        "turn" integer NOT NULL,
        "max_turns" integer NOT NULL,
        "original_max_turns" integer NOT NULL,
        "turn_timeout_seconds" integer NOT NULL,
        "turn_deadline" timestamptz,
        "awaiting_task_ids" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "resume_speaker_id" varchar(64),
        "conclusion" text,
        "last_seq" integer NOT NULL DEFAULT 0,
        "version" integer NOT NULL DEFAULT 1,
        "created_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL,
        CONSTRAINT "groups_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "groups_state_check" CHECK ("state" IN
          ('discussing', 'awaiting_sync_tasks', 'paused', 'concluding', 'concluded', 'failed')),
        CONSTRAINT "groups_turn_check" CHECK ("turn" >= 1 AND "max_turns" >= 1),
        -- A deadline runs exactly while an agent holds the turn.
        CONSTRAINT "groups_deadline_check" CHECK ("turn_deadline" IS NULL OR
          ("current_speaker" IS NOT NULL AND "current_speaker" <> 'user'))
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "groups_goal_id_key" ON "chat"."groups" ("goal_id")`);
    // The turn-timeout sweeper only ever looks at running deadlines, earliest first.
    await queryRunner.query(
      `CREATE INDEX "groups_turn_deadline_idx" ON "chat"."groups" ("turn_deadline") WHERE "turn_deadline" IS NOT NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE "chat"."group_members" (
        "group_id" uuid NOT NULL,
        "agent_id" uuid NOT NULL,
        "name" varchar(63) NOT NULL,
        "reason" text,
        "position" integer NOT NULL,
        CONSTRAINT "group_members_pkey" PRIMARY KEY ("group_id", "agent_id"),
        CONSTRAINT "group_members_group_fkey" FOREIGN KEY ("group_id") REFERENCES "chat"."groups" ("id") ON DELETE CASCADE
      )`);

    await queryRunner.query(`
      CREATE TABLE "chat"."messages" (
        "id" uuid NOT NULL,
        "group_id" uuid NOT NULL,
        "seq" integer NOT NULL,
        "type" varchar(32) NOT NULL,
        "sender_id" varchar(64) NOT NULL,
        "sender_name" varchar(100) NOT NULL,
        "content" text NOT NULL,
        "next_speaker" varchar(64),
        "tasks" jsonb,
        "await_task_ids" jsonb,
        "usage" jsonb,
        "turn" integer NOT NULL,
        "created_at" timestamptz NOT NULL,
        CONSTRAINT "messages_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "messages_group_fkey" FOREIGN KEY ("group_id") REFERENCES "chat"."groups" ("id") ON DELETE CASCADE,
        CONSTRAINT "messages_seq_check" CHECK ("seq" >= 1)
      )`);
    // Gap-free ordering per group; also the index of every page and window read.
    await queryRunner.query(`CREATE UNIQUE INDEX "messages_group_seq_key" ON "chat"."messages" ("group_id", "seq")`);

    await queryRunner.query(`
      CREATE TABLE "chat"."group_tasks" (
        "task_id" uuid NOT NULL,
        "group_id" uuid NOT NULL,
        "assigner_id" uuid NOT NULL,
        "assignee_id" uuid NOT NULL,
        "assignee_name" varchar(63) NOT NULL,
        "mode" varchar(8) NOT NULL,
        "abstract" varchar(300) NOT NULL,
        "description" text NOT NULL,
        "state" varchar(32) NOT NULL,
        "result" text,
        "status_message" text,
        "source_updated_at" timestamptz,
        "message_seq" integer NOT NULL,
        "ordinal" integer NOT NULL,
        "created_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL,
        CONSTRAINT "group_tasks_pkey" PRIMARY KEY ("task_id"),
        CONSTRAINT "group_tasks_group_fkey" FOREIGN KEY ("group_id") REFERENCES "chat"."groups" ("id") ON DELETE CASCADE,
        CONSTRAINT "group_tasks_mode_check" CHECK ("mode" IN ('sync', 'async'))
      )`);
    await queryRunner.query(
      `CREATE INDEX "group_tasks_group_idx" ON "chat"."group_tasks" ("group_id", "message_seq", "ordinal")`,
    );

    await queryRunner.query(`
      CREATE TABLE "chat"."outbox" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "subject" varchar(200) NOT NULL,
        "message_id" varchar(200) NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "chat"."outbox"`);
    await queryRunner.query(`DROP TABLE "chat"."group_tasks"`);
    await queryRunner.query(`DROP TABLE "chat"."messages"`);
    await queryRunner.query(`DROP TABLE "chat"."group_members"`);
    await queryRunner.query(`DROP TABLE "chat"."groups"`);
  }
}
