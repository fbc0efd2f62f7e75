import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The transactional outbox of registry events (see `OutboxEventEntity`). */
export class CreateOutbox1795312387774 implements MigrationInterface {
  name = 'CreateOutbox1795312387774';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "registry"."outbox" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "subject" varchar(200) NOT NULL,
        "message_id" varchar(200) NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "registry"."outbox"`);
  }
}
