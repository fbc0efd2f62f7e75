import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Goals, tasks, each goal's event log and the outbox. Migrations are frozen history: they spell out the schema name
 * and SQL instead of importing anything that may change later.
 */
export class CreateSchedulerTables1795312543981 implements MigrationInterface {
  name = 'CreateSchedulerTables1795312543981';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "scheduler"."goals" (
        "id" uuid NOT NULL,
        "goal" text NOT NULL,
        "status" varchar(32) NOT NULL,
        "status_reason" text,
        "requested_members" jsonb,
        "team" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "group_id" uuid,
        "conclusion" text,
        "max_turns" integer NOT NULL,
        "depth" integer NOT NULL,
        "max_depth" integer NOT NULL,
        "parent_task_id" uuid,
        "parent_goal_id" uuid,
        "budget_tokens" integer,
        "budget_seconds" integer,
        "prompt_tokens" integer NOT NULL DEFAULT 0,
        "completion_tokens" integer NOT NULL DEFAULT 0,
        "model_calls" integer NOT NULL DEFAULT 0,
        "round_started_at" timestamptz NOT NULL,
        "round_start_tokens" integer NOT NULL DEFAULT 0,
        "conclusion_forced_at" timestamptz,
        "formation_lease_until" timestamptz,
        "group_closed_at" timestamptz,
        "last_event_seq" integer NOT NULL DEFAULT 0,
        "created_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL,
        "ended_at" timestamptz,
        CONSTRAINT "goals_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "goals_status_check" CHECK ("status" IN
          ('submitted', 'forming_team', 'working', 'input_required', 'completed', 'failed', 'canceled')),
        CONSTRAINT "goals_depth_check" CHECK ("depth" >= 0 AND "depth" <= "max_depth")
      )`);
    // The sweeper's questions: goals still forming, goals at work (budgets), ended goals whose group is still open.
    await queryRunner.query(
      `CREATE INDEX "goals_open_status_idx" ON "scheduler"."goals" ("status") WHERE "status" IN ('submitted', 'forming_team', 'working', 'input_required')`,
    );
    await queryRunner.query(
      `CREATE INDEX "goals_group_to_close_idx" ON "scheduler"."goals" ("updated_at") WHERE "status" IN ('failed', 'canceled') AND "group_id" IS NOT NULL AND "group_closed_at" IS NULL`,
    );
    await queryRunner.query(`CREATE INDEX "goals_group_id_idx" ON "scheduler"."goals" ("group_id")`);
    await queryRunner.query(`CREATE INDEX "goals_parent_goal_id_idx" ON "scheduler"."goals" ("parent_goal_id")`);
    await queryRunner.query(`CREATE INDEX "goals_parent_task_id_idx" ON "scheduler"."goals" ("parent_task_id")`);

    await queryRunner.query(`
      CREATE TABLE "scheduler"."tasks" (
        "id" uuid NOT NULL,
        "goal_id" uuid NOT NULL,
        "group_id" uuid NOT NULL,
        "parent_task_id" uuid,
        "assigner_id" uuid NOT NULL,
        "assignee_id" uuid NOT NULL,
        "assignee_name" varchar(100) NOT NULL,
        "mode" varchar(8) NOT NULL,
        "description" text NOT NULL,
        "abstract" text NOT NULL,
        "brief" jsonb,
        "state" varchar(16) NOT NULL,
        "result" text,
        "status_message" text,
        "deadline" timestamptz NOT NULL,
        "attempts" integer NOT NULL DEFAULT 0,
        "next_dispatch_at" timestamptz,
        "child_goal_id" uuid,
        "message_id" uuid NOT NULL,
        "version" integer NOT NULL,
        "created_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL,
        "started_at" timestamptz,
        "completed_at" timestamptz,
        CONSTRAINT "tasks_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "tasks_goal_fkey" FOREIGN KEY ("goal_id") REFERENCES "scheduler"."goals" ("id"),
        CONSTRAINT "tasks_mode_check" CHECK ("mode" IN ('sync', 'async')),
        CONSTRAINT "tasks_state_check" CHECK ("state" IN
          ('submitted', 'working', 'input-required', 'completed', 'failed', 'canceled', 'rejected'))
      )`);
    await queryRunner.query(`CREATE INDEX "tasks_goal_id_idx" ON "scheduler"."tasks" ("goal_id", "created_at")`);
    // Open tasks are what the sweeper (deadlines, deliveries) and the presence consumer look at.
    await queryRunner.query(
      `CREATE INDEX "tasks_open_deadline_idx" ON "scheduler"."tasks" ("deadline") WHERE "state" IN ('submitted', 'working', 'input-required')`,
    );
    await queryRunner.query(
      `CREATE INDEX "tasks_open_assignee_idx" ON "scheduler"."tasks" ("assignee_id") WHERE "state" IN ('submitted', 'working', 'input-required')`,
    );
    await queryRunner.query(
      `CREATE INDEX "tasks_dispatch_due_idx" ON "scheduler"."tasks" ("next_dispatch_at") WHERE "next_dispatch_at" IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX "tasks_child_goal_id_idx" ON "scheduler"."tasks" ("child_goal_id")`);

    await queryRunner.query(`
      CREATE TABLE "scheduler"."goal_events" (
        "goal_id" uuid NOT NULL,
        "seq" integer NOT NULL,
        "type" varchar(16) NOT NULL,
        "data" jsonb NOT NULL,
        "at" timestamptz NOT NULL,
        "source_key" varchar(300),
        CONSTRAINT "goal_events_pkey" PRIMARY KEY ("goal_id", "seq"),
        CONSTRAINT "goal_events_goal_fkey" FOREIGN KEY ("goal_id") REFERENCES "scheduler"."goals" ("id"),
        CONSTRAINT "goal_events_type_check" CHECK ("type" IN ('status', 'team', 'message', 'task', 'group'))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "goal_events_source_key" ON "scheduler"."goal_events" ("goal_id", "source_key")`,
    );

    await queryRunner.query(`
      CREATE TABLE "scheduler"."outbox" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "subject" varchar(200) NOT NULL,
        "stream" varchar(100),
        "message_id" varchar(200) NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "scheduler"."outbox"`);
    await queryRunner.query(`DROP TABLE "scheduler"."goal_events"`);
    await queryRunner.query(`DROP TABLE "scheduler"."tasks"`);
    await queryRunner.query(`DROP TABLE "scheduler"."goals"`);
  }
}
