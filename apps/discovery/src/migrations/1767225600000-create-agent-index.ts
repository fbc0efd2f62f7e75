import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agent index (discovery's projection of the registry) and the tombstones of deregistered agents.
 * The HNSW index for the default dimension (384) is created here; other dimensions get theirs at boot
 * (see `indexing/hnsw-index.ts` for why the column has no fixed dimension, and for the choice of m and
 * ef_construction).
 */
export class CreateAgentIndex1767225600000 implements MigrationInterface {
  name = 'CreateAgentIndex1767225600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "discovery"."agent_index" (
        "agent_id" uuid PRIMARY KEY,
        "name" text NOT NULL,
        "card" jsonb NOT NULL,
        "status" text NOT NULL CHECK ("status" IN ('online', 'offline')),
        "revision" integer NOT NULL,
        "skill_tags" text[] NOT NULL DEFAULT '{}',
        "embedding" vector NOT NULL,
        "model" text NOT NULL,
        "dimension" integer NOT NULL,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "agent_index_dimension_matches" CHECK (vector_dims("embedding") = "dimension")
      )`);
    // Keep vectors inside the row: a 384-float vector (1.5 KB) plus the card exceeds PostgreSQL's 2 KB TOAST
    // threshold, and by default the vector (the largest value, storage EXTERNAL) would be moved out of line, so
    // every distance computed from the table (exact searches, the distance in the select list) would fetch it from
    // the TOAST table. With MAIN the compressible card moves out first and the vector stays inline.
    await queryRunner.query(`ALTER TABLE "discovery"."agent_index" ALTER COLUMN "embedding" SET STORAGE MAIN`);
    await queryRunner.query(
      `CREATE INDEX "agent_index_skill_tags_idx" ON "discovery"."agent_index" USING gin ("skill_tags")`,
    );
    await queryRunner.query(`CREATE INDEX "agent_index_model_idx" ON "discovery"."agent_index" ("model", "dimension")`);
    await queryRunner.query(`
      CREATE INDEX "agent_index_embedding_384_hnsw" ON "discovery"."agent_index"
      USING hnsw (("embedding"::vector(384)) vector_cosine_ops) WITH (m = 24, ef_construction = 200)
      WHERE "dimension" = 384`);
    await queryRunner.query(`
      CREATE TABLE "discovery"."removed_agent" (
        "agent_id" uuid PRIMARY KEY,
        "revision" integer NOT NULL,
        "removed_at" timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "discovery"."removed_agent"`);
    await queryRunner.query(`DROP TABLE "discovery"."agent_index"`);
  }
}
