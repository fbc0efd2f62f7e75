import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { DocumentEntity } from './document.entity.js';

/**
 * A passage of a document with its embedding. The `embedding` column is pgvector's `vector` without a fixed
 * dimension (the embedder can be swapped; `model` and `dimension` say which space a vector lives in), so it is
 * written and searched with SQL in `DocumentIndexRepository`, not through the entity.
 */
@Entity({ name: 'document_chunk', schema: 'agent_host' })
export class DocumentChunkEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'document_id' })
  documentId: string;

  @ManyToOne('DocumentEntity', (document: DocumentEntity) => document.chunks, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'document_id' })
  document?: DocumentEntity;

  @Column('int')
  ordinal: number;

  @Column('text')
  heading: string;

  @Column('text')
  content: string;

  @Column('text')
  model: string;

  @Column('int')
  dimension: number;
}
