import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateIf, IsOptional, IsUrl, Matches, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** 32 bytes in base64: 43 characters and one `=` of padding. */
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;
const BASE64_KEYS = /^[A-Za-z0-9+/]{43}=(,[A-Za-z0-9+/]{43}=)*$/;

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

  /**
   * This replica's stable name (k8s: the pod name; `npm start`: local-adapters-<n>). Accepted tasks are owned under
   * it, so a restarted replica takes its own tasks back at once instead of after their lease.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._:-]{1,200}$/, { message: 'ADAPTERS_INSTANCE_ID must be 1-200 of A-Z a-z 0-9 . _ : -' })
  ADAPTERS_INSTANCE_ID?: string;

  /** How long a replica owns an accepted task without renewing it; after that another replica resumes it. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(300)
  @Max(600_000)
  ADAPTERS_TASK_LEASE_MS?: number;

  /** Times a task may be taken over (its replicas kept dying) before it is failed with that reason. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  ADAPTERS_TASK_MAX_CLAIMS?: number;

  /**
   * The master key that encrypts agents' secrets at rest (AES-256-GCM): 32 random bytes, base64. Required in
   * production; without it (development, tests) a fixed development key is used and a warning logged.
   */
  @ValidateIf((env: AdaptersEnvironment) => !!env.ADAPTERS_SECRET_KEY)
  @Matches(BASE64_KEY, { message: 'ADAPTERS_SECRET_KEY must be 32 bytes, base64-encoded' })
  ADAPTERS_SECRET_KEY?: string;

  /** Earlier master keys, comma-separated base64: secrets under them are still read, and re-encrypted at boot. */
  @ValidateIf((env: AdaptersEnvironment) => !!env.ADAPTERS_PREVIOUS_SECRET_KEYS)
  @Matches(BASE64_KEYS, { message: 'ADAPTERS_PREVIOUS_SECRET_KEYS must be comma-separated base64 32-byte keys' })
  ADAPTERS_PREVIOUS_SECRET_KEYS?: string;

  /** `production` makes ADAPTERS_SECRET_KEY required. */
  @IsOptional()
  @IsString()
  NODE_ENV?: string;
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
    ownership: {
      instanceId: env.ADAPTERS_INSTANCE_ID || undefined,
      leaseMs: numberOr(env.ADAPTERS_TASK_LEASE_MS, 15_000),
      maxClaims: numberOr(env.ADAPTERS_TASK_MAX_CLAIMS, 5),
    },
    secrets: {
      key: env.ADAPTERS_SECRET_KEY || undefined,
      previousKeys: (env.ADAPTERS_PREVIOUS_SECRET_KEYS ?? '').split(',').filter(Boolean),
      production: env.NODE_ENV === 'production',
    },
    /** Probes are quick questions: a short timeout tells "down" from "slow" soon enough for presence. */
    probeTimeoutMs: 3_000,
  };
});

export type AdaptersConfig = ReturnType<typeof adaptersConfig>;
