import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment of the goal event streams (SSE), validated at boot like the gateway's own. */
class GoalEventsEnvironment {
  /**
   * How often an idle stream gets a comment line. Proxies and load balancers close connections that stay silent
   * (often after 30-60 s); each heartbeat also re-reads the log, so a live event lost in transit arrives late by at
   * most this much.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'GATEWAY_SSE_HEARTBEAT_MS must be an integer' })
  @Min(50)
  @Max(300_000)
  GATEWAY_SSE_HEARTBEAT_MS?: number;
}

export const goalEventsConfig = registerAs('goalEvents', () => {
  const heartbeat = process.env.GATEWAY_SSE_HEARTBEAT_MS;
  const environment = heartbeat === undefined || heartbeat === '' ? {} : { GATEWAY_SSE_HEARTBEAT_MS: heartbeat };
  validateEnvironment(environment, GoalEventsEnvironment);
  return {
    heartbeatMs: Number(environment.GATEWAY_SSE_HEARTBEAT_MS ?? 15_000),
    /** Events per `ListGoalEventsV1` page while catching up (the contract allows up to 1000). */
    pageSize: 200,
    /** Delay before the log is read again after a failed read, or when it lags the live tail. */
    retryDelayMs: 500,
  };
});

export type GoalEventsConfig = ReturnType<typeof goalEventsConfig>;
