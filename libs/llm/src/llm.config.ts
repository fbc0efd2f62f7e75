import { registerAs } from '@nestjs/config';

/**
 * `llm` configuration. The OpenAI-compatible model is used when `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set;
 * otherwise the deterministic offline model (which is always the case on a machine without an endpoint).
 */
export const llmConfig = registerAs('llm', () => {
  const baseUrl = process.env.OPENAI_BASE_URL || undefined;
  const apiKey = process.env.OPENAI_API_KEY || undefined;
  return {
    provider: baseUrl || apiKey ? ('openai' as const) : ('offline' as const),
    baseUrl,
    apiKey,
    model: process.env.LLM_MODEL || 'gpt-4o-mini',
    /** Extra attempts after an invalid answer, each told what was wrong. */
    invalidOutputRetries: Number(process.env.LLM_INVALID_OUTPUT_RETRIES ?? 2),
    transportRetries: Number(process.env.LLM_TRANSPORT_RETRIES ?? 2),
    timeoutMs: Number(process.env.LLM_TIMEOUT_MS ?? 60_000),
  };
});

export type LlmConfig = ReturnType<typeof llmConfig>;
