import { type CanActivate, type ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ContractError } from '@ioa/contracts';
import { ADMIN_ONLY, PUBLIC_ROUTE } from './access.decorators.js';
import { AccountRateLimiter } from './account-rate-limiter.js';
import { authenticateChallenge, Authenticator, sentCredentials } from './authenticator.js';
import { isAdmin, type AuthenticatedRequest } from './principal.js';
import { admit } from './request-admission.js';

interface ChallengeResponse {
  setHeader(name: string, value: string): unknown;
}

/**
 * The one guard in front of every REST route (registered globally): a 401 with `WWW-Authenticate` without valid
 * credentials, a 429 with `Retry-After` over the account's rate limit (or an address's failed authentications), a
 * 403 for a member on an admin route. It leaves the principal on the request, where `TraceContext` picks it up for
 * every NATS request the route makes. Routes marked `@Public()` are the health probes only; the A2A card, the
 * OpenAPI UI and the console's files are not Nest routes and never reach this guard.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly rateLimiter: AccountRateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest & { ip?: string }>();
    const response = context.switchToHttp().getResponse<ChallengeResponse>();
    let admission;
    try {
      admission = await admit(this.authenticator, this.rateLimiter, request.headers, String(request.ip));
    } catch (error) {
      if (error instanceof ContractError && error.code === 'UNAUTHENTICATED') {
        response.setHeader('WWW-Authenticate', authenticateChallenge(sentCredentials(request.headers), error.message));
      }
      throw error;
    }
    if ('refusal' in admission) {
      response.setHeader('Retry-After', String(admission.refusal.retryAfterSeconds));
      throw new HttpException(admission.refusal.message, HttpStatus.TOO_MANY_REQUESTS);
    }
    request.principal = admission.principal;
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) && !isAdmin(request.principal)) {
      throw new ContractError('FORBIDDEN', 'Only an admin may do this');
    }
    return true;
  }
}
