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
}

export const DEFAULT_HEARTBEAT_TTL_SECONDS = 30;
export const DEFAULT_PRESENCE_SWEEP_MS = 1000;

export const registryConfig = registerAs('registry', () => {
  validateEnvironment(process.env, RegistryEnvironment);
  return {
    heartbeatTtlSeconds: Number(process.env.REGISTRY_HEARTBEAT_TTL_SECONDS ?? DEFAULT_HEARTBEAT_TTL_SECONDS),
    presenceSweepMs: Number(process.env.REGISTRY_PRESENCE_SWEEP_MS ?? DEFAULT_PRESENCE_SWEEP_MS),
  };
});

export type RegistryConfig = ReturnType<typeof registryConfig>;
