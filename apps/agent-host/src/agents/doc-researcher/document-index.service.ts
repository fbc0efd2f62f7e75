import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { agentHostConfig, type AgentHostConfig } from '../../agent-host.config.js';
import { chunkMarkdown, CHUNKER_VERSION } from './chunking.js';
import { DocumentIndexRepository, type PassageMatch } from './document-index.repository.js';
import { EMBEDDER, type Embedder } from '@ioa/embeddings';

export interface IndexingReport {
  indexed: string[];
  unchanged: string[];
  removed: string[];
}

/**
 * The folder of shipped documents: the configured one, else `apps/agent-host/documents` found by walking up from
 * this file (works from `src/` under ts-jest and from `dist/` after the build).
 */
export function locateDocuments(configured: string | undefined): string {
  if (configured) return resolve(configured);
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, 'apps', 'agent-host', 'documents');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(directory);
    if (parent === directory)
      throw new Error('The documents folder apps/agent-host/documents was not found; set AGENT_HOST_DOCUMENTS_DIR');
    directory = parent;
  }
}

/** Keeps the pgvector index in step with the shipped Markdown documents, and searches it. */
@Injectable()
export class DocumentIndexService implements OnApplicationBootstrap {
  private readonly logger = new Logger(DocumentIndexService.name);
  private ready?: Promise<IndexingReport>;

  constructor(
    private readonly repository: DocumentIndexRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig,
  ) {}

  /** Indexes at boot when the researcher is hosted, so its first question does not pay for it. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.agents.includes('doc-researcher')) return;
    // A missing folder or a failed indexing must not take the other agents and the communicator down with it:
    // the researcher's tasks fail with the reason instead (and indexing is tried again on the next question).
    await this.ensureIndexed().catch((error: unknown) =>
      this.logger.error(`Indexing the documents failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  /** Indexes once per process (idempotent); searches wait for it. */
  ensureIndexed(): Promise<IndexingReport> {
    this.ready ??= this.synchronize().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /**
   * Re-indexes the documents whose content hash (content + chunker version + embedding model) changed, adds new
   * ones and removes deleted ones, in one transaction.
   */
  async synchronize(): Promise<IndexingReport> {
    const folder = locateDocuments(this.config.documentsDir);
    const files = (await readdir(folder)).filter((file) => file.endsWith('.md')).sort();
    const report: IndexingReport = { indexed: [], unchanged: [], removed: [] };
    const documents = await Promise.all(
      files.map(async (source) => {
        const content = await readFile(join(folder, source), 'utf8');
        const contentHash = createHash('sha256')
          .update(`${CHUNKER_VERSION}\n${this.embedder.model}\n${content}`)
          .digest('hex');
        return { source, content, contentHash };
      }),
    );
    await this.repository.inIndexingLock(async (manager) => {
      const existing = new Map((await this.repository.listDocuments(manager)).map((row) => [row.source, row]));
      for (const document of documents) {
        if (existing.get(document.source)?.contentHash === document.contentHash) {
          report.unchanged.push(document.source);
          continue;
        }
        const parsed = chunkMarkdown(document.content, document.source.replace(/\.md$/, ''));
        const vectors = await this.embedder.embed(
          parsed.chunks.map((chunk) => `${parsed.title}. ${chunk.heading}. ${chunk.content}`),
        );
        await this.repository.deleteDocument(manager, document.source);
        await this.repository.insertDocument(
          manager,
          { source: document.source, title: parsed.title, contentHash: document.contentHash },
          parsed.chunks.map((chunk, index) => ({ ...chunk, embedding: vectors[index] })),
          this.embedder.model,
        );
        report.indexed.push(document.source);
      }
      for (const source of existing.keys()) {
        if (documents.some((document) => document.source === source)) continue;
        await this.repository.deleteDocument(manager, source);
        report.removed.push(source);
      }
    });
    this.logger.log(
      `Documents: ${report.indexed.length} indexed, ${report.unchanged.length} unchanged, ${report.removed.length} removed (${this.embedder.model})`,
    );
    return report;
  }

  async search(question: string, limit: number): Promise<PassageMatch[]> {
    await this.ensureIndexed();
    const [vector] = await this.embedder.embed([question]);
    if (vector.every((value) => value === 0)) return []; // no searchable words: cosine is undefined
    return this.repository.search(vector, this.embedder.model, limit);
  }
}
