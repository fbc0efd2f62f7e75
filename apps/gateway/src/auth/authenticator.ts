import { Injectable } from '@nestjs/common';
import { ContractError } from '@ioa/contracts';
import { AccountsService } from './accounts.service.js';
import { looksLikeApiKey } from './api-key.js';
import { OidcVerifier } from './oidc-verifier.js';
import type { AuthenticatedPrincipal } from './principal.js';

export const API_KEY_HEADER = 'x-api-key';
/** The challenge of every 401 (RFC 6750): both ways in are bearer credentials. */
export const AUTHENTICATION_REALM = 'Bearer realm="ioa"';

type RequestHeaders = Record<string, string | string[] | undefined>;

/**
 * Who is calling, from the request's headers: `Authorization: Bearer <API key | OIDC JWT>` or `X-API-Key: <key>`.
 * Used by the REST guard and by the A2A and MCP endpoints, so every door checks credentials the same way.
 */
@Injectable()
export class Authenticator {
  constructor(
    private readonly accounts: AccountsService,
    private readonly oidc: OidcVerifier,
  ) {}

  async authenticate(headers: RequestHeaders): Promise<AuthenticatedPrincipal> {
    const credential = credentialOf(headers);
    if (credential === undefined) {
      throw new ContractError(
        'UNAUTHENTICATED',
        'Authentication required: send "Authorization: Bearer <API key or OIDC token>" or "X-API-Key: <API key>"',
      );
    }
    return looksLikeApiKey(credential) ? this.accounts.authenticate(credential) : this.oidc.verify(credential);
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function credentialOf(headers: RequestHeaders): string | undefined {
  const authorization = single(headers.authorization)?.trim();
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) {
      throw new ContractError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <API key or OIDC token>"');
    }
    return match[1];
  }
  const apiKey = single(headers[API_KEY_HEADER])?.trim();
  return apiKey ? apiKey : undefined;
}

/** The `WWW-Authenticate` value of a 401, naming the failure as RFC 6750 does when credentials were sent. */
export function authenticateChallenge(credentialsSent: boolean, message: string): string {
  if (!credentialsSent) return AUTHENTICATION_REALM;
  return `${AUTHENTICATION_REALM}, error="invalid_token", error_description="${message.replace(/["\\]/g, "'")}"`;
}

export function sentCredentials(headers: RequestHeaders): boolean {
  return Boolean(single(headers.authorization)?.trim() || single(headers[API_KEY_HEADER])?.trim());
}
