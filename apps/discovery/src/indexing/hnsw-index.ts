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

/**
 * Graph degree and build-time candidate list, tuned with the discovery benchmark (docs/benchmarks.md). With
 * pgvector's defaults (m 16, ef_construction 64) recall@10 on 100,000 cards was only 0.69 at ef_search 100 and
 * 0.91 at 800: hashed bag-of-words vectors are nearly orthogonal to each other and short queries lie far from every
 * card, which is hard for a proximity graph. m 24 / ef_construction 200 reaches 0.95 at ef_search 400 and 0.98 at
 * 500 (the default `DISCOVERY_HNSW_EF_SEARCH`), for a build about twice as long.
 */
export const HNSW_M = 24;
export const HNSW_EF_CONSTRUCTION = 200;

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
