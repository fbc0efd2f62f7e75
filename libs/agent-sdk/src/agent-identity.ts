import { nkeys } from '@nats-io/transport-node';

/**
 * An agent's NATS identity: the user JWT the platform signed for the agent's public key, and the agent's own seed
 * (which never leaves it). The broker lets this user publish and subscribe only under `ioa.agent.<agentId>.>` and
 * read replies under `_INBOX.<agentId>.>`.
 */
export interface AgentIdentity {
  /** The agent id the JWT is named by: the card registers under it. */
  agentId: string;
  /** The user JWT. */
  jwt: string;
  /** The agent's nkey user seed ("SU…"). */
  seed: string;
  /** The account that owns the agent (the card's `owner` must be it), when the issuer said so. */
  accountId?: string;
  /** When the JWT expires (ISO 8601), when known: renew it before, with the same key. */
  expiresAt?: string;
  /** The broker URLs the platform told the agent to use, when known. */
  natsUrls?: string[];
}

/** An nkey user key pair made by the agent: the public key is sent to the platform, the seed stays. */
export interface AgentKeyPair {
  publicKey: string;
  seed: string;
}

export function createAgentKeyPair(): AgentKeyPair {
  const pair = nkeys.createUser();
  return { publicKey: pair.getPublicKey(), seed: new TextDecoder().decode(pair.getSeed()) };
}

export interface RequestAgentIdentityOptions {
  /** The platform's REST gateway, e.g. `http://127.0.0.1:3000`. */
  gatewayUrl: string;
  /** An API key of the account that will own the agent. */
  apiKey: string;
  /** The agent's key pair; a new one when absent. */
  keyPair?: AgentKeyPair;
  /** The agent to renew (same key) or rotate (new key); absent for a new agent. */
  agentId?: string;
  expiresInSeconds?: number;
}

/**
 * Asks the platform to sign a NATS user JWT for the agent's public key (`POST /v1/agents/identities`), and returns
 * the identity to start an `IoaAgent` with. Only the public key travels; the seed stays in this process.
 */
export async function requestAgentIdentity(options: RequestAgentIdentityOptions): Promise<AgentIdentity> {
  const keyPair = options.keyPair ?? createAgentKeyPair();
  const response = await fetch(new URL('/v1/agents/identities', options.gatewayUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
    body: JSON.stringify({
      publicKey: keyPair.publicKey,
      ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
      ...(options.expiresInSeconds === undefined ? {} : { expiresInSeconds: options.expiresInSeconds }),
    }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    agentId?: string;
    accountId?: string;
    jwt?: string;
    expiresAt?: string;
    natsUrls?: string[];
    message?: string;
  };
  if (!response.ok || !body.agentId || !body.jwt) {
    throw new Error(`The platform did not issue an identity (${response.status}): ${body.message ?? 'no message'}`);
  }
  return {
    agentId: body.agentId,
    jwt: body.jwt,
    seed: keyPair.seed,
    accountId: body.accountId,
    expiresAt: body.expiresAt,
    natsUrls: body.natsUrls,
  };
}

const CREDS_JWT = /-----BEGIN NATS USER JWT-----\s*([A-Za-z0-9_.=-]+)\s*------END NATS USER JWT------/;
const CREDS_SEED = /-----BEGIN USER NKEY SEED-----\s*(SU[A-Z2-7]+)\s*------END USER NKEY SEED------/;

/**
 * Reads a NATS creds file (the format `nsc`, nats.go's `UserCredentials` and nats.js's `credsAuthenticator` use):
 * its JWT, its seed, and the agent id from the JWT's `name` claim.
 */
export function agentIdentityFromCreds(text: string): AgentIdentity {
  const jwt = CREDS_JWT.exec(text)?.[1];
  const seed = CREDS_SEED.exec(text)?.[1];
  if (!jwt || !seed) throw new Error('Not a NATS user creds file: it needs a user JWT and a user nkey seed');
  const claims = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { name?: unknown };
  if (typeof claims.name !== 'string' || claims.name.length === 0) {
    throw new Error('The creds file’s JWT has no name: an agent identity is named by its agent id');
  }
  return { agentId: claims.name, jwt, seed };
}

/** The identity as a NATS creds file, for agents in other languages (nats.go `nats.UserCredentials(path)`). */
export function credsFileOf(identity: Pick<AgentIdentity, 'jwt' | 'seed'>): string {
  return [
    '-----BEGIN NATS USER JWT-----',
    identity.jwt,
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    'NKEY Seed printed below can be used to sign and prove identity.',
    'NKEYs are sensitive and should be treated as secrets.',
    '',
    '-----BEGIN USER NKEY SEED-----',
    identity.seed,
    '------END USER NKEY SEED------',
    '',
  ].join('\n');
}

/** The inbox prefix the broker lets this agent read its replies under. */
export function inboxPrefixOf(identity: Pick<AgentIdentity, 'agentId'>): string {
  return `_INBOX.${identity.agentId}`;
}
