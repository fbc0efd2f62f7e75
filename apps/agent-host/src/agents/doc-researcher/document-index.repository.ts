import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { DocumentChunk } from './chunking.js';

export interface IndexedDocumentRow {
  id: string;
  source: string;
  contentHash: string;
}

export interface PassageMatch {
  source: string;
  title: string;
  heading: string;
  content: string;
  /** Cosine similarity in [-1, 1]. */
  score: number;
}

function vectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`;
}

/** SQL access to the researcher's collection (pgvector values are written and compared as `vector` literals). */
@Injectable()
export class DocumentIndexRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in one transaction holding an advisory lock, so replicas booting together index one at a time and
   * the second finds everything up to date.
   */
  inIndexingLock<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('agent_host.document_index'))`);
      return work(manager);
    });
  }

  async listDocuments(manager: EntityManager): Promise<IndexedDocumentRow[]> {
    const rows: Array<{ id: string; source: string; content_hash: string }> = await manager.query(
      `SELECT "id", "source", "content_hash" FROM "agent_host"."document"`,
    );
    return rows.map((row) => ({ id: row.id, source: row.source, contentHash: row.content_hash }));
  }

  async deleteDocument(manager: EntityManager, source: string): Promise<void> {
    await manager.query(`DELETE FROM "agent_host"."document" WHERE "source" = $1`, [source]);
  }

  async insertDocument(
    manager: EntityManager,
    document: { source: string; title: string; contentHash: string },
    chunks: Array<DocumentChunk & { embedding: number[] }>,
    model: string,
  ): Promise<void> {
    const id = randomUUID();
    await manager.query(
      `INSERT INTO "agent_host"."document" ("id", "source", "title", "content_hash", "indexed_at") VALUES ($1, $2, $3, $4, now())`,
      [id, document.source, document.title, document.contentHash],
    );
    for (const chunk of chunks) {
      await manager.query(
        `INSERT INTO "agent_host"."document_chunk" ("id", "document_id", "ordinal", "heading", "content", "embedding", "model", "dimension")
         VALUES ($1, $2, $3, $4, $5, $6::vector, $7, $8)`,
        [
          randomUUID(),
          id,
          chunk.ordinal,
          chunk.heading,
          chunk.content,
          vectorLiteral(chunk.embedding),
          model,
          chunk.embedding.length,
        ],
      );
    }
  }

  /** The `limit` passages closest to `vector` (cosine), among those embedded by `model`. */
  async search(vector: number[], model: string, limit: number): Promise<PassageMatch[]> {
    const rows: Array<{ source: string; title: string; heading: string; content: string; score: string | number }> =
      await this.dataSource.query(
        `SELECT d."source", d."title", c."heading", c."content", 1 - (c."embedding" <=> $1::vector) AS "score"
           FROM "agent_host"."document_chunk" c
           JOIN "agent_host"."document" d ON d."id" = c."document_id"
          WHERE c."model" = $2
          ORDER BY c."embedding" <=> $1::vector, d."source", c."ordinal"
          LIMIT $3`,
        [vectorLiteral(vector), model, limit],
      );
    return rows.map((row) => ({ ...row, score: Number(row.score) }));
  }
}
