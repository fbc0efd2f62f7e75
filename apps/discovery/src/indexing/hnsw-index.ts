/**
 * The HNSW index of the embeddings, one per dimension.
 *
 * Why per dimension: pgvector can only index vectors of one fixed dimension, but the dimension belongs to the
 * embedding model, which is configuration. So the `embedding` column is a dimension-less `vector`, each row stores
 * its `model` and `dimension`, and the index is a *partial expression* index:
 *
 *   CREATE INDEX ... USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE dimension = 384
 *
 * which searches use by writing the same expression and predicate (`ORDER BY embedding::vector(384) <=> $1 ...
 * WHERE dimension = 384`). The migration creates the index for the default dimension (384, the local embedder);
 * at boot `IndexMaintenanceService` creates the one for the configured dimension if it is another, re-embeds rows
 * of any other model or dimension, and then drops indexes of dimensions no row has any more. A change of model is
 * therefore a restart with new configuration, no migration and no manual step.
 */

/** Graph degree and build-time candidate list: pgvector's defaults, which reach recall@10 > 0.95 (see the bench). */
export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 64;

export function hnswIndexName(dimension: number): string {
  return `agent_index_embedding_${dimension}_hnsw`;
}

/** Matches the names above, to find the per-dimension indexes that exist. */
export const HNSW_INDEX_NAME_PATTERN = /^agent_index_embedding_(\d+)_hnsw$/;

export function createHnswIndexSql(schema: string, dimension: number): string {
  assertDimension(dimension);
  return (
    `CREATE INDEX IF NOT EXISTS "${hnswIndexName(dimension)}" ON "${schema}"."agent_index" ` +
    `USING hnsw (("embedding"::vector(${dimension})) vector_cosine_ops) ` +
    `WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION}) WHERE "dimension" = ${dimension}`
  );
}

/** Dimensions are interpolated into SQL (a typmod cannot be a parameter), so they are checked to be integers. */
export function assertDimension(dimension: number): void {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 16_000) {
    throw new Error(`Invalid embedding dimension ${dimension}`);
  }
}
