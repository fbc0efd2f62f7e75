import OpenAI from 'openai';
import { type Embedder, normalize } from './embedder.js';

export interface OpenAiEmbedderOptions {
  /** `OPENAI_BASE_URL`, e.g. `https://api.openai.com/v1` or a local vLLM / Ollama / LiteLLM `/v1`. */
  baseUrl?: string;
  apiKey?: string;
  model: string;
  /** Requested from the endpoint (`dimensions`) when set; otherwise the model's native size must be known. */
  dimensions?: number;
  timeoutMs: number;
  maxRetries: number;
}

/** Native output sizes of well-known models, used when `EMBEDDING_DIMENSIONS` is not set. */
const NATIVE_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/** The API accepts up to 2048 inputs per request; smaller batches keep each request well under its time limit. */
const BATCH_SIZE = 256;

/**
 * Embeddings from any OpenAI-compatible endpoint through the official `openai` client (which brings retries with
 * backoff and timeouts). Vectors are requested as plain floats, which every compatible server supports (the
 * client's default, base64, is not universal), and re-normalised, since not every model returns unit vectors.
 */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  private readonly client: OpenAI;
  private readonly sendDimensions: boolean;

  constructor(options: OpenAiEmbedderOptions) {
    this.model = options.model;
    const dimension = options.dimensions ?? NATIVE_DIMENSIONS[options.model];
    if (dimension === undefined) {
      throw new Error(`The size of embedding model "${options.model}" is unknown: set EMBEDDING_DIMENSIONS`);
    }
    this.dimension = dimension;
    this.sendDimensions = options.dimensions !== undefined;
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // Local OpenAI-compatible servers often need no key, but the client insists on one.
      apiKey: options.apiKey ?? 'not-needed',
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
    });
  }

  async embed(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += BATCH_SIZE) {
      vectors.push(...(await this.embedBatch(texts.slice(start, start + BATCH_SIZE))));
    }
    return vectors;
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    const response = await this.client.embeddings.create({
      model: this.model,
      input,
      encoding_format: 'float',
      ...(this.sendDimensions ? { dimensions: this.dimension } : {}),
    });
    if (!Array.isArray(response?.data) || response.data.length !== input.length) {
      throw new Error(
        `The embedding endpoint returned ${response?.data?.length ?? 'no'} vectors for ${input.length} inputs`,
      );
    }
    const ordered = [...response.data].sort((a, b) => a.index - b.index);
    return ordered.map((item) => {
      const embedding = Array.from(item.embedding, Number);
      if (embedding.length !== this.dimension) {
        throw new Error(
          `Embedding model "${this.model}" returned ${embedding.length} dimensions, expected ${this.dimension}: ` +
            'set EMBEDDING_DIMENSIONS to the model size',
        );
      }
      return normalize(embedding);
    });
  }
}
