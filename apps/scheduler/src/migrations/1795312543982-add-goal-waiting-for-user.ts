import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether the goal's conversation waits for the person (a member asked them a question). Kept apart from the status
 * because chat events can arrive before the goal is `working` (an agent may ask at once, while the scheduler is
 * still recording the new group).
 */
export class AddGoalWaitingForUser1795312543982 implements MigrationInterface {
  name = 'AddGoalWaitingForUser1795312543982';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "scheduler"."goals" ADD COLUMN "waiting_for_user" boolean NOT NULL DEFAULT false`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scheduler"."goals" DROP COLUMN "waiting_for_user"`);
  }
}
