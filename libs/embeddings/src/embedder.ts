/**
 * Turns text into unit-length vectors. Discovery stores `model` and `dimension` beside every vector, so vectors of
 * different models are never compared, and a change of model re-embeds the index (see `IndexMaintenanceService`).
 */
export interface Embedder {
  /** Identifies the vector space: two embedders with the same name and dimension produce comparable vectors. */
  readonly model: string;
  readonly dimension: number;
  /** One vector per text, in order, each L2-normalised (so cosine similarity is a dot product). */
  embed(texts: string[]): Promise<number[][]>;
}

/** Injection token of the configured embedder. */
export const EMBEDDER = Symbol('EMBEDDER');

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(vector: number[]): number[] {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/** Cosine similarity of two vectors of the same length. */
export function cosineSimilarity(a: number[], b: number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
