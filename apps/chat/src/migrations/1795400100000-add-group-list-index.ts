import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The group list (`ioa.chat.group.list.v1`, GET /v1/groups) reads newest first by (created_at, id) and resumes after
 * a cursor with a row comparison: a page is an index range scan instead of a sort of every group.
 */
export class AddGroupListIndex1795400100000 implements MigrationInterface {
  name = 'AddGroupListIndex1795400100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "groups_list_idx" ON "chat"."groups" ("created_at" DESC, "id" DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "chat"."groups_list_idx"`);
  }
}
