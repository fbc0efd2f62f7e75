import type { NextFunction, Request, Response } from 'express';
import { ContractError } from '@ioa/contracts';
import { contractErrorToHttp } from '../http/http-error.js';
import { AccountRateLimiter } from './account-rate-limiter.js';
import { authenticateChallenge, Authenticator, sentCredentials } from './authenticator.js';
import type { AuthenticatedPrincipal, AuthenticatedRequest } from './principal.js';
import { admit } from './request-admission.js';

/**
 * Express middleware in front of the A2A and MCP endpoints, which are the protocol SDKs' handlers rather than Nest
 * routes (so the global guard never sees them): the same credentials, the same 401 with `WWW-Authenticate`, the same
 * limits (`admit`), and the principal left on the request for the handler to act as.
 */
export function requireCredentials(authenticator: Authenticator, rateLimiter: AccountRateLimiter) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const target = request as unknown as AuthenticatedRequest;
    admit(authenticator, rateLimiter, target.headers, String(request.ip)).then(
      (admission) => {
        if ('principal' in admission) {
          target.principal = admission.principal;
          next();
          return;
        }
        response.setHeader('Retry-After', String(admission.refusal.retryAfterSeconds));
        response.status(429).json({ statusCode: 429, error: 'UNAVAILABLE', message: admission.refusal.message });
      },
      (error: unknown) => {
        const failure =
          error instanceof ContractError ? error : new ContractError('INTERNAL', 'Authentication failed unexpectedly');
        if (failure.code === 'UNAUTHENTICATED') {
          response.setHeader(
            'WWW-Authenticate',
            authenticateChallenge(sentCredentials(target.headers), failure.message),
          );
        }
        const body = contractErrorToHttp(failure);
        response.status(body.statusCode).json(body);
      },
    );
  };
}

/** The principal `requireCredentials` left on the request. */
export function principalOfRequest(request: Request): AuthenticatedPrincipal {
  const principal = (request as unknown as AuthenticatedRequest).principal;
  if (!principal) throw new ContractError('UNAUTHENTICATED', 'The request was not authenticated');
  return principal;
}
