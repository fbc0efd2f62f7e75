import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The submitter's `Idempotency-Key`: a retried `POST /v1/goals` (or `SubmitGoalV1`) with the same key returns the
 * goal the first attempt created instead of starting a second team. Unique where present.
 */
export class AddGoalIdempotencyKey1795312543984 implements MigrationInterface {
  name = 'AddGoalIdempotencyKey1795312543984';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scheduler"."goals" ADD COLUMN "idempotency_key" varchar(200)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "goals_idempotency_key" ON "scheduler"."goals" ("idempotency_key") WHERE "idempotency_key" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "scheduler"."goals_idempotency_key"`);
    await queryRunner.query(`ALTER TABLE "scheduler"."goals" DROP COLUMN "idempotency_key"`);
  }
}
