import { ContractError } from '@ioa/contracts';
import type { AccountRateLimiter, RateLimitRefusal } from './account-rate-limiter.js';
import type { Authenticator } from './authenticator.js';
import type { AuthenticatedPrincipal } from './principal.js';

export type Admission = { principal: AuthenticatedPrincipal } | { refusal: RateLimitRefusal };

/**
 * The one admission path of every door (the REST guard, the A2A and MCP middleware): an address that keeps failing
 * to authenticate is refused first, then the credentials are checked (UNAUTHENTICATED is thrown, and counted against
 * the address), then the account's rate limit.
 */
export async function admit(
  authenticator: Authenticator,
  rateLimiter: AccountRateLimiter,
  headers: Record<string, string | string[] | undefined>,
  address: string,
): Promise<Admission> {
  const blocked = await rateLimiter.checkFailures(address);
  if (blocked) return { refusal: blocked };
  let principal: AuthenticatedPrincipal;
  try {
    principal = await authenticator.authenticate(headers);
  } catch (error) {
    if (error instanceof ContractError && error.code === 'UNAUTHENTICATED') await rateLimiter.countFailure(address);
    throw error;
  }
  const refusal = await rateLimiter.consume(principal);
  return refusal ? { refusal } : { principal };
}
