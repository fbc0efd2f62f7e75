import { plainToInstance, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';

/**
 * Environment variables every service reads. Validated once at boot, so a typo fails the start with a clear
 * message instead of surfacing later as a confusing connection error.
 */
export class PlatformEnvironment {
  /** Comma-separated NATS server URLs. */
  @IsOptional()
  @Matches(/^(nats|tls|wss?):\/\/[^,\s]+(,(nats|tls|wss?):\/\/[^,\s]+)*$/, {
    message: 'NATS_URL must be one or more nats:// URLs separated by commas',
  })
  NATS_URL?: string;

  /**
   * Directory of the services' NATS credentials (`<dir>/<service>.creds`, written by @ioa/trust). Unset only for a
   * broker without authentication (the unit/e2e test broker); `npm start`, the demo and k8s always set it.
   */
  @IsOptional()
  @IsString()
  @Matches(/^\S+$/, { message: 'NATS_CREDENTIALS_DIR must be a directory path' })
  NATS_CREDENTIALS_DIR?: string;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(600_000)
  REQUEST_TIMEOUT_MS?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE?: number;

  @IsOptional()
  @IsString()
  LOG_LEVEL?: string;

  /** Comma-separated retry delays (ms) of a failing event handler, e.g. `1000,5000,30000`. */
  @IsOptional()
  @Matches(/^\d{1,9}(,\d{1,9}){0,19}$/, {
    message: 'EVENT_RETRY_BACKOFF_MS must be 1-20 comma-separated delays in milliseconds',
  })
  EVENT_RETRY_BACKOFF_MS?: string;

  /** Deliveries of a failing event before it becomes a dead letter; more than the backoff steps. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(2)
  @Max(1_000)
  EVENT_MAX_DELIVERIES?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(86_400_000)
  EVENT_STUCK_AFTER_MS?: number;
}

/** Validates `config` against `environmentClass` (default: the platform's) and throws one readable error. */
export function validateEnvironment<T extends object>(
  config: Record<string, unknown>,
  environmentClass: new () => T = PlatformEnvironment as unknown as new () => T,
): Record<string, unknown> {
  const instance = plainToInstance(environmentClass, config, { enableImplicitConversion: false });
  const errors = validateSync(instance, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.flatMap((error) => Object.values(error.constraints ?? {}));
    throw new Error(`Invalid environment:\n  - ${lines.join('\n  - ')}`);
  }
  return config;
}
