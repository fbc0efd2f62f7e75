import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ContractError } from '@ioa/contracts';
import { authConfig } from './auth.config.js';
import { ACCOUNT_ID_PATTERN } from './dto/accounts.dto.js';
import type { AuthenticatedPrincipal } from './principal.js';

/** The discovery document's one field the gateway needs, and its issuer to check it is the configured one. */
interface OpenIdConfiguration {
  issuer?: unknown;
  jwks_uri?: unknown;
}

const DISCOVERY_TIMEOUT_MS = 5_000;

/**
 * Bearer JWTs from an external OpenID Connect issuer, verified with `jose`: signature against the issuer's JWKS
 * (found through `/.well-known/openid-configuration`, cached and refreshed by jose when a new `kid` appears),
 * issuer, audience, expiry and not-before. The account and the role come from configurable claims.
 */
@Injectable()
export class OidcVerifier {
  private keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  constructor(@Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>) {}

  get enabled(): boolean {
    return this.config.oidc !== undefined;
  }

  async verify(token: string): Promise<AuthenticatedPrincipal> {
    const oidc = this.config.oidc;
    if (!oidc) throw new ContractError('UNAUTHENTICATED', 'This gateway accepts API keys only (no OIDC issuer)');
    const keys = await this.jwks(oidc.issuer);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, { issuer: oidc.issuer, audience: oidc.audience }));
    } catch (error) {
      throw new ContractError('UNAUTHENTICATED', `Invalid bearer token: ${describeJoseError(error)}`);
    }
    const accountId = payload[oidc.accountClaim];
    if (typeof accountId !== 'string' || !ACCOUNT_ID_PATTERN.test(accountId)) {
      throw new ContractError(
        'UNAUTHENTICATED',
        `Invalid bearer token: claim ${oidc.accountClaim} must name an account (a lowercase slug)`,
      );
    }
    const role = payload[oidc.roleClaim] ?? 'member';
    if (role !== 'admin' && role !== 'member') {
      throw new ContractError(
        'UNAUTHENTICATED',
        `Invalid bearer token: claim ${oidc.roleClaim} must be admin or member`,
      );
    }
    return { accountId, role, via: 'oidc' };
  }

  private jwks(issuer: string) {
    this.keys ??= discoverJwksUri(issuer)
      .then((uri) => createRemoteJWKSet(uri))
      .catch((error: unknown) => {
        this.keys = undefined;
        throw new ContractError(
          'UNAVAILABLE',
          `The OIDC issuer's keys could not be fetched: ${(error as Error).message}`,
        );
      });
    return this.keys;
  }
}

async function discoverJwksUri(issuer: string): Promise<URL> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
    signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const document = (await response.json()) as OpenIdConfiguration;
  // The discovery document must be the configured issuer's own (OpenID Connect Discovery 1.0, section 4.3).
  if (typeof document.issuer !== 'string' || document.issuer.replace(/\/+$/, '') !== issuer) {
    throw new Error('the discovery document names another issuer');
  }
  if (typeof document.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
  return new URL(document.jwks_uri);
}

/** jose's messages are clear ("\"exp\" claim timestamp check failed"); say which check failed, never the token. */
function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `claim ${error.claim} check failed (${error.reason})`;
  if (error instanceof joseErrors.JOSEError) return error.message;
  return 'not a valid JWT';
}
