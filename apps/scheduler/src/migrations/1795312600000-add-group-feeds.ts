import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Group feeds: a group's messages and state changes are logged in chat's order however they arrive (see
 * `events/group-feed.ts`). Groups already under way start where their goal's log is: at their highest logged
 * message.
 */
export class AddGroupFeeds1795312600000 implements MigrationInterface {
  name = 'AddGroupFeeds1795312600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "scheduler"."group_feeds" (
        "group_id" uuid PRIMARY KEY,
        "goal_id" uuid NOT NULL,
        "logged_seq" integer NOT NULL,
        "held" jsonb NOT NULL DEFAULT '[]',
        "held_since" timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX "group_feeds_held_since" ON "scheduler"."group_feeds" ("held_since") WHERE "held_since" IS NOT NULL`,
    );
    await queryRunner.query(`
      INSERT INTO "scheduler"."group_feeds" ("group_id", "goal_id", "logged_seq")
      SELECT ("data" ->> 'groupId')::uuid, "goal_id", max(("data" ->> 'seq')::integer)
        FROM "scheduler"."goal_events"
       WHERE "type" = 'message'
       GROUP BY 1, 2
      ON CONFLICT ("group_id") DO NOTHING`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "scheduler"."group_feeds"`);
  }
}
