import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { OutboxEventEntity } from '../outbox/outbox-event.entity.js';

/**
 * The outbox table built from the entity, for this library's own tests: their databases are thrown away afterwards.
 * (A service spells its migration's SQL out instead, as frozen history.)
 */
export class CreateOutbox1700000000000 implements MigrationInterface {
  name = 'CreateOutbox1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { connection } = queryRunner;
    await queryRunner.createTable(Table.create(connection.getMetadata(OutboxEventEntity), connection.driver));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(queryRunner.connection.getMetadata(OutboxEventEntity).tablePath);
  }
}
