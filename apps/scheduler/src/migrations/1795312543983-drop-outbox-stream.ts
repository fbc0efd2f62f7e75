import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox now follows the shared `OutboxEventEntity` of `@ioa/database`: the relay finds an event's stream in the
 * contract catalog by its subject (addressed subjects included) instead of reading it from the row, so `stream` goes.
 * Rows waiting in the outbox keep their subject and are published as before.
 */
export class DropOutboxStream1795312543983 implements MigrationInterface {
  name = 'DropOutboxStream1795312543983';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scheduler"."outbox" DROP COLUMN "stream"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scheduler"."outbox" ADD COLUMN "stream" varchar(100)`);
  }
}
