import { registerAs } from '@nestjs/config';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Largest dimension pgvector can index with HNSW for the `vector` type. */
export const MAX_INDEXED_DIMENSION = 2000;

/** Environment variables of the discovery service, validated at boot. */
class DiscoveryEnvironment {
  /** Any OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, LiteLLM, ...). Setting it selects that embedder. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  OPENAI_BASE_URL?: string;

  @IsOptional()
  @IsString()
  OPENAI_API_KEY?: string;

  @IsOptional()
  @IsString()
  EMBEDDING_MODEL?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(8)
  @Max(MAX_INDEXED_DIMENSION)
  EMBEDDING_DIMENSIONS?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  EMBEDDING_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10)
  EMBEDDING_MAX_RETRIES?: number;

  /**
   * Candidate list size of the HNSW search (recall against latency; see indexing/hnsw-index.ts); raised
   * automatically for large `topK`.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(1000)
  DISCOVERY_HNSW_EF_SEARCH?: number;

  /** Compare the index with the registry's list at boot (on by default; benchmarks turn it off). */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value === 'true' : value))
  @IsBoolean()
  DISCOVERY_RECONCILE_ON_BOOT?: boolean;
}

export const DEFAULT_LOCAL_DIMENSION = 384;
export const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small';

export const discoveryConfig = registerAs('discovery', () => {
  // An empty variable means "not set" (compose files and CI often export `OPENAI_API_KEY=`).
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ''));
  validateEnvironment(env, DiscoveryEnvironment);
  const dimensions = env.EMBEDDING_DIMENSIONS ? Number(env.EMBEDDING_DIMENSIONS) : undefined;
  return {
    embedding: {
      // The OpenAI-compatible endpoint wins as soon as it is configured at all; otherwise the local embedder.
      provider: env.OPENAI_BASE_URL || env.OPENAI_API_KEY ? ('openai' as const) : ('local' as const),
      baseUrl: env.OPENAI_BASE_URL || undefined,
      apiKey: env.OPENAI_API_KEY || undefined,
      model: env.EMBEDDING_MODEL || undefined,
      dimensions,
      timeoutMs: Number(env.EMBEDDING_TIMEOUT_MS ?? 30_000),
      maxRetries: Number(env.EMBEDDING_MAX_RETRIES ?? 2),
    },
    hnsw: {
      efSearch: Number(env.DISCOVERY_HNSW_EF_SEARCH ?? 500),
    },
    reconcileOnBoot: env.DISCOVERY_RECONCILE_ON_BOOT !== 'false',
  };
});

export type DiscoveryConfig = ReturnType<typeof discoveryConfig>;
