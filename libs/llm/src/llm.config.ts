import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment variables of the model layer, validated when a service that uses it boots. */
class LlmEnvironment {
  /** Any OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, LiteLLM…). Setting it selects the OpenAI model. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  OPENAI_BASE_URL?: string;

  @IsOptional()
  @IsString()
  OPENAI_API_KEY?: string;

  @IsOptional()
  @IsString()
  LLM_MODEL?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(5)
  LLM_INVALID_OUTPUT_RETRIES?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10)
  LLM_TRANSPORT_RETRIES?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  LLM_TIMEOUT_MS?: number;
}

function numberOr(value: string | undefined, fallback: number): number {
  return value === undefined || value === '' ? fallback : Number(value);
}

/**
 * `llm` configuration. The OpenAI-compatible model is used when `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set;
 * otherwise the deterministic offline model (which is always the case on a machine without an endpoint).
 */
export const llmConfig = registerAs('llm', () => {
  validateEnvironment(process.env, LlmEnvironment);
  const baseUrl = process.env.OPENAI_BASE_URL || undefined;
  const apiKey = process.env.OPENAI_API_KEY || undefined;
  return {
    provider: baseUrl || apiKey ? ('openai' as const) : ('offline' as const),
    baseUrl,
    apiKey,
    model: process.env.LLM_MODEL || 'gpt-4o-mini',
    /** Extra attempts after an invalid answer, each told what was wrong. */
    invalidOutputRetries: numberOr(process.env.LLM_INVALID_OUTPUT_RETRIES, 2),
    transportRetries: numberOr(process.env.LLM_TRANSPORT_RETRIES, 2),
    timeoutMs: numberOr(process.env.LLM_TIMEOUT_MS, 60_000),
  };
});

export type LlmConfig = ReturnType<typeof llmConfig>;
