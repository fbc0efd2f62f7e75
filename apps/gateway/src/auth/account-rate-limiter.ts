import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { authConfig } from './auth.config.js';
import type { AuthenticatedPrincipal } from './principal.js';

/** What a refused request is told: how long to wait before the account's window has room again. */
export interface RateLimitRefusal {
  retryAfterSeconds: number;
  limitPerMinute: number;
}

/**
 * The per-account REST rate limit (all doors: REST, A2A, MCP), counted per account rather than per address: people
 * behind one proxy do not share a limit, and an account does not escape it by spreading over addresses.
 * `rate-limiter-flexible` rather than `@nestjs/throttler`: the latter is CommonJS requiring Nest 12's ES modules,
 * which Node 20 loads but jest's module runtime cannot. Counts live in this replica's memory, so N replicas allow up
 * to N times the limit; a shared store (its Redis or PostgreSQL limiters) would make it exact.
 */
@Injectable()
export class AccountRateLimiter {
  private readonly limiter: RateLimiterMemory;

  constructor(@Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>) {
    this.limiter = new RateLimiterMemory({ points: config.rateLimitPerMinute, duration: 60 });
  }

  /** Counts one request of the account; a refusal when its minute is used up. */
  async consume(principal: AuthenticatedPrincipal): Promise<RateLimitRefusal | undefined> {
    try {
      await this.limiter.consume(principal.accountId);
      return undefined;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return {
        retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)),
        limitPerMinute: this.config.rateLimitPerMinute,
      };
    }
  }
}

export function rateLimitMessage(refusal: RateLimitRefusal): string {
  return `Rate limit of ${refusal.limitPerMinute} requests per minute for this account reached; retry in ${refusal.retryAfterSeconds} s`;
}
