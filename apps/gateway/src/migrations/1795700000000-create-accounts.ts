import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People's accounts and their API keys. A key is stored only as the SHA-256 of its text (`key_hash`), looked up by
 * that hash on every request; `key_prefix` is the first characters, so a person can tell keys apart in a listing.
 * The role is the key's: an account can hold admin and member keys. Migrations are frozen history: schema name and
 * SQL spelled out.
 */
export class CreateAccounts1795700000000 implements MigrationInterface {
  name = 'CreateAccounts1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "gateway"."accounts" (
        "id" varchar(64) COLLATE "C" NOT NULL,
        "name" varchar(200) NOT NULL,
        "created_at" timestamptz NOT NULL,
        CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`
      CREATE TABLE "gateway"."api_keys" (
        "id" uuid NOT NULL,
        "account_id" varchar(64) COLLATE "C" NOT NULL REFERENCES "gateway"."accounts" ("id"),
        "name" varchar(200) NOT NULL,
        "role" varchar(16) NOT NULL,
        "key_hash" char(64) NOT NULL,
        "key_prefix" varchar(16) NOT NULL,
        "created_at" timestamptz NOT NULL,
        "expires_at" timestamptz,
        "revoked_at" timestamptz,
        "last_used_at" timestamptz,
        CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "api_keys_role_check" CHECK ("role" IN ('admin', 'member'))
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "api_keys_key_hash_idx" ON "gateway"."api_keys" ("key_hash")`);
    await queryRunner.query(`CREATE INDEX "api_keys_account_idx" ON "gateway"."api_keys" ("account_id", "created_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway"."api_keys"`);
    await queryRunner.query(`DROP TABLE "gateway"."accounts"`);
  }
}
