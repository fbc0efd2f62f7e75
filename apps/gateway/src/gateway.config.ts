import { resolve } from 'node:path';
import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsIP, IsOptional, IsString, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment variables only the gateway reads; validated at boot like the platform's own. */
class GatewayEnvironment {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'GATEWAY_PORT must be an integer' })
  @Min(0)
  @Max(65535)
  GATEWAY_PORT?: number;

  /** The address to listen on: loopback unless set (a container or a pod sets 0.0.0.0). */
  @IsOptional()
  @IsIP(undefined, { message: 'GATEWAY_HOST must be an IP address (127.0.0.1, 0.0.0.0, ::)' })
  GATEWAY_HOST?: string;

  /** Upper bound for each service's health answer; the request timeout caps it too. */
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'GATEWAY_HEALTH_TIMEOUT_MS must be an integer' })
  @Min(50)
  @Max(60_000)
  GATEWAY_HEALTH_TIMEOUT_MS?: number;

  /** The built web console (`npm run build:console`), served at `/`. */
  @IsOptional()
  @IsString()
  GATEWAY_CONSOLE_DIR?: string;
}

export const DEFAULT_GATEWAY_PORT = 8080;
export const DEFAULT_GATEWAY_HOST = '127.0.0.1';
export const DEFAULT_CONSOLE_DIR = 'dist/apps/console';

export const gatewayConfig = registerAs('gateway', () => {
  const environment = {
    GATEWAY_PORT: process.env.GATEWAY_PORT,
    GATEWAY_HOST: process.env.GATEWAY_HOST,
    GATEWAY_HEALTH_TIMEOUT_MS: process.env.GATEWAY_HEALTH_TIMEOUT_MS,
    GATEWAY_CONSOLE_DIR: process.env.GATEWAY_CONSOLE_DIR,
  };
  validateEnvironment(
    Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== '')),
    GatewayEnvironment,
  );
  return {
    port: Number(environment.GATEWAY_PORT || DEFAULT_GATEWAY_PORT),
    /** Loopback by default: nobody else on the network reaches a gateway someone started on a laptop. */
    host: environment.GATEWAY_HOST || DEFAULT_GATEWAY_HOST,
    /** Health must answer quickly even when services are down, so it waits less than ordinary requests. */
    healthTimeoutMs: Number(environment.GATEWAY_HEALTH_TIMEOUT_MS || 1000),
    /** Relative to the working directory, where `npm run build` writes it (the repository, or the image's /app). */
    consoleDir: resolve(environment.GATEWAY_CONSOLE_DIR || DEFAULT_CONSOLE_DIR),
  };
});

export type GatewayConfig = ReturnType<typeof gatewayConfig>;
