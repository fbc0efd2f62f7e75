import { ContractError } from '@ioa/contracts';
import type { AccountsService } from './accounts.service.js';
import { authenticateChallenge, Authenticator, sentCredentials } from './authenticator.js';
import type { OidcVerifier } from './oidc-verifier.js';
import type { AuthenticatedPrincipal } from './principal.js';

const KEY = `ioa_${'k'.repeat(43)}`;
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

/** Which verifier a credential went to: the header parsing is what is under test, not the verifiers. */
function authenticatorRecording(seen: string[]): Authenticator {
  const accounts = {
    authenticate: (key: string) => {
      seen.push(`api-key:${key}`);
      return Promise.resolve<AuthenticatedPrincipal>({ accountId: 'alpha', role: 'member', via: 'api-key' });
    },
  } as unknown as AccountsService;
  const oidc = {
    verify: (token: string) => {
      seen.push(`oidc:${token}`);
      return Promise.resolve<AuthenticatedPrincipal>({ accountId: 'alpha', role: 'member', via: 'oidc' });
    },
  } as unknown as OidcVerifier;
  return new Authenticator(accounts, oidc);
}

describe('reading credentials from a request', () => {
  it('sends API keys (bearer or X-API-Key) to the key store and other bearer tokens to the OIDC verifier', async () => {
    const seen: string[] = [];
    const authenticator = authenticatorRecording(seen);
    await authenticator.authenticate({ authorization: `Bearer ${KEY}` });
    await authenticator.authenticate({ authorization: `bearer   ${KEY}` });
    await authenticator.authenticate({ 'x-api-key': ` ${KEY} ` });
    await authenticator.authenticate({ authorization: `Bearer ${JWT}` });
    expect(seen).toEqual([`api-key:${KEY}`, `api-key:${KEY}`, `api-key:${KEY}`, `oidc:${JWT}`]);
  });

  it.each([
    ['no credentials', {}, /Authentication required/],
    ['another scheme', { authorization: 'Basic YWRtaW46YWRtaW4=' }, /must be "Bearer/],
    ['a bearer without a token', { authorization: 'Bearer' }, /must be "Bearer/],
    ['two tokens', { authorization: `Bearer ${KEY} ${KEY}` }, /must be "Bearer/],
  ])('refuses %s as UNAUTHENTICATED, saying how to authenticate', async (_case, headers, message) => {
    const seen: string[] = [];
    const refusal = authenticatorRecording(seen).authenticate(headers);
    await expect(refusal).rejects.toBeInstanceOf(ContractError);
    await expect(refusal).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringMatching(message) });
    expect(seen).toEqual([]);
  });

  it('challenges with the realm, and names the failure only when credentials were sent', () => {
    expect(sentCredentials({})).toBe(false);
    expect(sentCredentials({ 'x-api-key': KEY })).toBe(true);
    expect(authenticateChallenge(false, 'Authentication required')).toBe('Bearer realm="ioa"');
    expect(authenticateChallenge(true, 'This API key was "revoked"')).toBe(
      `Bearer realm="ioa", error="invalid_token", error_description="This API key was 'revoked'"`,
    );
  });
});
