import { Logger, Module } from '@nestjs/common';
import {
  discoveryConfig,
  type DiscoveryConfig,
  DEFAULT_LOCAL_DIMENSION,
  DEFAULT_OPENAI_MODEL,
  MAX_INDEXED_DIMENSION,
} from '../discovery.config.js';
import { EMBEDDER, LocalHashEmbedder, OpenAiEmbedder, type Embedder } from '@ioa/embeddings';

/** Picks the OpenAI-compatible embedder when an endpoint or key is configured, the local one otherwise. */
export function createEmbedder(config: DiscoveryConfig['embedding']): Embedder {
  const embedder =
    config.provider === 'openai'
      ? new OpenAiEmbedder({
          baseUrl: config.baseUrl,
          apiKey: config.apiKey,
          model: config.model ?? DEFAULT_OPENAI_MODEL,
          dimensions: config.dimensions,
          timeoutMs: config.timeoutMs,
          maxRetries: config.maxRetries,
        })
      : new LocalHashEmbedder(config.dimensions ?? DEFAULT_LOCAL_DIMENSION);
  if (embedder.dimension > MAX_INDEXED_DIMENSION) {
    // pgvector's HNSW indexes `vector` up to 2000 dimensions; models with more (text-embedding-3-large) can
    // return shortened vectors on request.
    throw new Error(
      `Embedding model "${embedder.model}" has ${embedder.dimension} dimensions; the HNSW index supports at most ` +
        `${MAX_INDEXED_DIMENSION}: set EMBEDDING_DIMENSIONS (e.g. 1024)`,
    );
  }
  new Logger('Embedding').log(`Embedding with ${embedder.model} (${embedder.dimension} dimensions)`);
  return embedder;
}

@Module({
  providers: [
    {
      provide: EMBEDDER,
      inject: [discoveryConfig.KEY],
      useFactory: (config: DiscoveryConfig) => createEmbedder(config.embedding),
    },
  ],
  exports: [EMBEDDER],
})
export class EmbeddingModule {}
