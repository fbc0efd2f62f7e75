import { Column, Entity, OneToMany, PrimaryColumn } from 'typeorm';
import type { DocumentChunkEntity } from './document-chunk.entity.js';

/** A document of the researcher's collection, as last indexed. */
@Entity({ name: 'document', schema: 'agent_host' })
export class DocumentEntity {
  @PrimaryColumn('uuid')
  id: string;

  /** Path relative to the documents folder, e.g. `presence.md`. */
  @Column('text', { unique: true })
  source: string;

  @Column('text')
  title: string;

  /** sha256 of the content, the chunker version and the embedding model: a change of any re-indexes. */
  @Column('text', { name: 'content_hash' })
  contentHash: string;

  @Column('timestamptz', { name: 'indexed_at' })
  indexedAt: Date;

  @OneToMany('DocumentChunkEntity', (chunk: DocumentChunkEntity) => chunk.document)
  chunks?: DocumentChunkEntity[];
}
