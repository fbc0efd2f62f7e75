import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { authConfig } from './auth.config.js';
import type { AuthenticatedPrincipal } from './principal.js';

/** What a refused request is told: why, and how long to wait before there is room again. */
export interface RateLimitRefusal {
  retryAfterSeconds: number;
  message: string;
}

/**
 * The per-account REST rate limit (all doors: REST, A2A, MCP), counted per account rather than per address: people
 * behind one proxy do not share a limit, and an account does not escape it by spreading over addresses. Failed
 * authentications are counted per address with the same allowance, and an address over it is refused before any key
 * lookup, so a flood of bad credentials costs no database work.
 * `rate-limiter-flexible` rather than `@nestjs/throttler`: the latter is CommonJS requiring Nest 12's ES modules,
 * which Node 20 loads but jest's module runtime cannot. Counts live in this replica's memory, so N replicas allow up
 * to N times the limit; a shared store (its Redis or PostgreSQL limiters) would make it exact.
 */
@Injectable()
export class AccountRateLimiter {
  private readonly requests: RateLimiterMemory;
  private readonly failures: RateLimiterMemory;

  constructor(@Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>) {
    this.requests = new RateLimiterMemory({ points: config.rateLimitPerMinute, duration: 60 });
    this.failures = new RateLimiterMemory({ points: config.rateLimitPerMinute, duration: 60 });
  }

  /** Counts one request of the account; a refusal when its minute is used up. */
  async consume(principal: AuthenticatedPrincipal): Promise<RateLimitRefusal | undefined> {
    try {
      await this.requests.consume(principal.accountId);
      return undefined;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const retryAfterSeconds = secondsUntil(error);
      return {
        retryAfterSeconds,
        message: `Rate limit of ${this.config.rateLimitPerMinute} requests per minute for this account reached; retry in ${retryAfterSeconds} s`,
      };
    }
  }

  /** A refusal when the address has used up its failed authentications of this minute. */
  async checkFailures(address: string): Promise<RateLimitRefusal | undefined> {
    const spent = await this.failures.get(address);
    if (!spent || spent.consumedPoints < this.config.rateLimitPerMinute) return undefined;
    const retryAfterSeconds = secondsUntil(spent);
    return {
      retryAfterSeconds,
      message: `Too many failed authentications from this address; retry in ${retryAfterSeconds} s`,
    };
  }

  async countFailure(address: string): Promise<void> {
    await this.failures.consume(address).catch((error: unknown) => {
      if (!(error instanceof RateLimiterRes)) throw error;
    });
  }
}

function secondsUntil(state: RateLimiterRes): number {
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}
