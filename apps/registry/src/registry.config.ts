import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment variables of the registry, validated at boot so a typo fails the start, not a sweep hours later. */
export class RegistryEnvironment {
  /** Seconds of silence after which an agent is marked offline. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(86_400)
  REGISTRY_HEARTBEAT_TTL_SECONDS?: number;

  /** How often the presence sweeper looks for silent agents. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(3_600_000)
  REGISTRY_PRESENCE_SWEEP_MS?: number;

  /** Agents one owner (an account) may have registered at once. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  REGISTRY_MAX_AGENTS_PER_OWNER?: number;
}

export const DEFAULT_HEARTBEAT_TTL_SECONDS = 30;
export const DEFAULT_PRESENCE_SWEEP_MS = 1000;
/** Plenty for a team's agents; a runaway script stops here instead of flooding discovery. */
export const DEFAULT_MAX_AGENTS_PER_OWNER = 500;

export const registryConfig = registerAs('registry', () => {
  validateEnvironment(process.env, RegistryEnvironment);
  return {
    heartbeatTtlSeconds: Number(process.env.REGISTRY_HEARTBEAT_TTL_SECONDS ?? DEFAULT_HEARTBEAT_TTL_SECONDS),
    presenceSweepMs: Number(process.env.REGISTRY_PRESENCE_SWEEP_MS ?? DEFAULT_PRESENCE_SWEEP_MS),
    maxAgentsPerOwner: Number(process.env.REGISTRY_MAX_AGENTS_PER_OWNER || DEFAULT_MAX_AGENTS_PER_OWNER),
  };
});

export type RegistryConfig = ReturnType<typeof registryConfig>;
