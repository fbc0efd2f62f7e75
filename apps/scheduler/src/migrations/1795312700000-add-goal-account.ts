import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account a goal belongs to (the REST caller who submitted it; a sub-goal inherits its parent's). NULL for a goal
 * a platform service submitted for itself. Idempotency keys become per account: one account's key must neither
 * return nor block another account's goal. The partial index counts an account's open top-level goals (its quota).
 */
export class AddGoalAccount1795312700000 implements MigrationInterface {
  name = 'AddGoalAccount1795312700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scheduler"."goals" ADD COLUMN "account_id" varchar(200)`);
    await queryRunner.query(`DROP INDEX "scheduler"."goals_idempotency_key"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "goals_account_idempotency_key" ON "scheduler"."goals" (COALESCE("account_id", ''), "idempotency_key") WHERE "idempotency_key" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "goals_account_open" ON "scheduler"."goals" ("account_id") WHERE "ended_at" IS NULL AND "parent_goal_id" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "scheduler"."goals_account_open"`);
    await queryRunner.query(`DROP INDEX "scheduler"."goals_account_idempotency_key"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "goals_idempotency_key" ON "scheduler"."goals" ("idempotency_key") WHERE "idempotency_key" IS NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE "scheduler"."goals" DROP COLUMN "account_id"`);
  }
}
