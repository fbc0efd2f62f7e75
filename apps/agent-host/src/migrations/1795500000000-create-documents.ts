import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The researcher's document collection: documents (one row per file, with the hash that decides re-indexing) and
 * their passages with pgvector embeddings. The collection is small (tens of passages), so an exact scan is both
 * fast and exact; no ANN index.
 */
export class CreateDocuments1795500000000 implements MigrationInterface {
  name = 'CreateDocuments1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "agent_host"."document" (
        "id" uuid PRIMARY KEY,
        "source" text NOT NULL UNIQUE,
        "title" text NOT NULL,
        "content_hash" text NOT NULL,
        "indexed_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE "agent_host"."document_chunk" (
        "id" uuid PRIMARY KEY,
        "document_id" uuid NOT NULL REFERENCES "agent_host"."document" ("id") ON DELETE CASCADE,
        "ordinal" integer NOT NULL,
        "heading" text NOT NULL,
        "content" text NOT NULL,
        "embedding" vector NOT NULL,
        "model" text NOT NULL,
        "dimension" integer NOT NULL,
        CONSTRAINT "document_chunk_position" UNIQUE ("document_id", "ordinal"),
        CONSTRAINT "document_chunk_dimension_matches" CHECK (vector_dims("embedding") = "dimension")
      )`);
    await queryRunner.query(`CREATE INDEX "document_chunk_model_idx" ON "agent_host"."document_chunk" ("model")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "agent_host"."document_chunk"`);
    await queryRunner.query(`DROP TABLE "agent_host"."document"`);
  }
}
