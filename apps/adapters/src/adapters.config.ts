import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment variables of the adapters service, validated at boot. */
class AdaptersEnvironment {
  /** How often each adapted agent's endpoint is probed; a reachable one is then heartbeated. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(600_000)
  ADAPTERS_HEARTBEAT_MS?: number;

  /** Timeout of one outbound call (A2A, MCP, model, webhook) unless the agent's endpoint sets its own. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(600_000)
  ADAPTERS_CALL_TIMEOUT_MS?: number;

  /** Attempts of a call that is safe to repeat (card and tool listing, probes, webhook delivery keyed by task id). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  ADAPTERS_CALL_ATTEMPTS?: number;

  /** Port of the webhook callback listener (0: any free port). Only third-party callbacks arrive here. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65_535)
  ADAPTERS_CALLBACK_PORT?: number;

  /** The callback listener's public base URL, as webhooks must call it (default: http://127.0.0.1:<port>). */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  ADAPTERS_CALLBACK_BASE_URL?: string;

  /** Tool calls an MCP task may make before it must answer. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(50)
  ADAPTERS_MCP_MAX_TOOL_CALLS?: number;
}

function numberOr(value: string | undefined, fallback: number): number {
  return value === undefined || value === '' ? fallback : Number(value);
}

export const adaptersConfig = registerAs('adapters', () => {
  validateEnvironment(process.env, AdaptersEnvironment);
  const env = process.env;
  return {
    heartbeatIntervalMs: numberOr(env.ADAPTERS_HEARTBEAT_MS, 5_000),
    callTimeoutMs: numberOr(env.ADAPTERS_CALL_TIMEOUT_MS, 30_000),
    callAttempts: numberOr(env.ADAPTERS_CALL_ATTEMPTS, 3),
    // Any free port by default, so replicas on one machine do not collide; deployments pin it (4100).
    callbackPort: numberOr(env.ADAPTERS_CALLBACK_PORT, 0),
    callbackBaseUrl: env.ADAPTERS_CALLBACK_BASE_URL || undefined,
    mcpMaxToolCalls: numberOr(env.ADAPTERS_MCP_MAX_TOOL_CALLS, 8),
    /** Probes are quick questions: a short timeout tells "down" from "slow" soon enough for presence. */
    probeTimeoutMs: 3_000,
  };
});

export type AdaptersConfig = ReturnType<typeof adaptersConfig>;
