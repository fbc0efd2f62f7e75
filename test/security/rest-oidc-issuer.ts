import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

/**
 * A real, minimal OpenID Connect issuer on loopback: its discovery document and its JWKS (a public key generated with
 * jose) over HTTP, and tokens signed with the private key. The gateway finds the JWKS through discovery and verifies
 * the tokens exactly as it would an external issuer's.
 */
export interface LocalOidcIssuer {
  issuer: string;
  /** A token of this issuer; `expiresIn` as jose reads it (`'5m'`, or a past timestamp in seconds). */
  token(claims: JWTPayload, options: { audience: string; expiresIn?: string | number }): Promise<string>;
  /** A token signed by a key the issuer does not publish: a forgery. */
  forgedToken(claims: JWTPayload, options: { audience: string }): Promise<string>;
  stop(): Promise<void>;
}

const KEY_ID = 'test-key-1';
type SigningKey = Parameters<SignJWT['sign']>[0];

export async function startLocalOidcIssuer(): Promise<LocalOidcIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: KEY_ID, alg: 'RS256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const body =
      request.url === '/.well-known/openid-configuration'
        ? { issuer, jwks_uri: `${issuer}/jwks`, id_token_signing_alg_values_supported: ['RS256'] }
        : request.url === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    response.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const sign = (claims: JWTPayload, audience: string, key: SigningKey, expiresIn: string | number = '5m') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: KEY_ID })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(String(claims.sub ?? 'person'))
      .setIssuedAt(typeof expiresIn === 'number' ? expiresIn - 600 : undefined)
      .setExpirationTime(expiresIn)
      .sign(key);

  return {
    issuer,
    token: (claims, options) => sign(claims, options.audience, privateKey, options.expiresIn),
    forgedToken: (claims, options) => sign(claims, options.audience, stranger.privateKey),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
