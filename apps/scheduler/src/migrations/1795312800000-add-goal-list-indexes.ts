import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The goal list (`ioa.scheduler.goal.list.v1`, GET /v1/goals) reads newest first by (created_at, id) and resumes
 * after a cursor with a row comparison: these indexes let a page be an index range scan instead of a sort of every
 * goal. One for the admin's view of all goals, one per account (what a member sees).
 */
export class AddGoalListIndexes1795312800000 implements MigrationInterface {
  name = 'AddGoalListIndexes1795312800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "goals_list_idx" ON "scheduler"."goals" ("created_at" DESC, "id" DESC)`);
    await queryRunner.query(
      `CREATE INDEX "goals_account_list_idx" ON "scheduler"."goals" ("account_id", "created_at" DESC, "id" DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "scheduler"."goals_account_list_idx"`);
    await queryRunner.query(`DROP INDEX "scheduler"."goals_list_idx"`);
  }
}
