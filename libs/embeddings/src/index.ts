/**
 * @ioa/embeddings — text to unit-length vectors, shared by discovery (agent cards) and the document researcher:
 * the deterministic local embedder the project owns, and the OpenAI-compatible one.
 */
export * from './embedder.js';
export * from './local-hash-embedder.js';
export * from './openai-embedder.js';
