/**
 * @ioa/llm — the model layer: one `LanguageModel` interface for structured decisions, an OpenAI-compatible
 * implementation and a deterministic offline one, the purposes' input/output classes, and usage accounting.
 */
export * from './language-model.js';
export * from './usage.js';
export * from './output-schema.js';
export * from './purposes/index.js';
export * from './openai-language-model.js';
export * from './offline/offline-language-model.js';
export { isWriter, WRITER_TAGS } from './offline/profiles.js';
export { splitClauses, containsCode, firstSentence, truncate } from './offline/text.js';
export * from './llm.config.js';
export * from './llm.module.js';
