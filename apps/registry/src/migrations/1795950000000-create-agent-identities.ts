import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Agent identities (issue 10): the current key of each agent id, its owning account, and every revoked key. */
export class CreateAgentIdentities1795950000000 implements MigrationInterface {
  name = 'CreateAgentIdentities1795950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "registry"."agent_identities" (
        "agent_id" uuid NOT NULL,
        "account_id" varchar(200) NOT NULL,
        "public_key" varchar(56) NOT NULL,
        "issued_at" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "revoked_at" timestamptz,
        CONSTRAINT "agent_identities_pkey" PRIMARY KEY ("agent_id"),
        CONSTRAINT "agent_identities_expiry_check" CHECK ("expires_at" > "issued_at")
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "agent_identities_public_key_key" ON "registry"."agent_identities" ("public_key")`,
    );
    await queryRunner.query(
      `CREATE INDEX "agent_identities_account_idx" ON "registry"."agent_identities" ("account_id")`,
    );
    await queryRunner.query(`
      CREATE TABLE "registry"."agent_identity_revoked_keys" (
        "public_key" varchar(56) NOT NULL,
        "agent_id" uuid NOT NULL,
        "revoked_at" timestamptz NOT NULL,
        CONSTRAINT "agent_identity_revoked_keys_pkey" PRIMARY KEY ("public_key")
      )`);
    await queryRunner.query(
      `CREATE INDEX "agent_identity_revoked_keys_agent_idx" ON "registry"."agent_identity_revoked_keys" ("agent_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "registry"."agent_identity_revoked_keys"`);
    await queryRunner.query(`DROP TABLE "registry"."agent_identities"`);
  }
}
