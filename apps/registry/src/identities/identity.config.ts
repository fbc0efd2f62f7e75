import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { MAX_AGENT_CREDENTIAL_SECONDS } from '@ioa/contracts';
import { validateEnvironment } from '@ioa/config';

/** The registry's identity authority settings, validated at boot. */
export class IdentityEnvironment {
  /**
   * The trust directory provisioned by @ioa/trust (the registry reads the agent signing key, the operator signing key,
   * the IOA account JWT and the SYS user's creds from it). Unset: issuance answers UNAVAILABLE.
   */
  @IsOptional()
  @IsString()
  IOA_TRUST_DIR?: string;

  /** How long an agent's JWT is valid unless the agent asks for less. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(60)
  @Max(MAX_AGENT_CREDENTIAL_SECONDS)
  REGISTRY_IDENTITY_TTL_SECONDS?: number;

  /** How often a revocation list the broker did not confirm is pushed again. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  REGISTRY_REVOCATION_RETRY_MS?: number;
}

export const DEFAULT_IDENTITY_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_REVOCATION_RETRY_MS = 5000;

export const identityConfig = registerAs('identity', () => {
  validateEnvironment(process.env, IdentityEnvironment);
  return {
    trustDir: process.env.IOA_TRUST_DIR || undefined,
    ttlSeconds: Number(process.env.REGISTRY_IDENTITY_TTL_SECONDS ?? DEFAULT_IDENTITY_TTL_SECONDS),
    revocationRetryMs: Number(process.env.REGISTRY_REVOCATION_RETRY_MS ?? DEFAULT_REVOCATION_RETRY_MS),
  };
});

export type IdentityConfig = ReturnType<typeof identityConfig>;
