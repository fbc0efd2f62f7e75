import { ContractError, type Principal } from '@ioa/contracts';

/**
 * The identity decisions, pure: who may issue, rotate, renew or revoke which agent's credentials. The service reads
 * the rows, asks these, and writes what they decide; the clock, the new id and the TTL come in, so every rule is
 * unit-tested without a database or a broker.
 */

export interface IdentitySnapshot {
  agentId: string;
  accountId: string;
  publicKey: string;
  revokedAt: Date | null;
}

/** Who already uses a public key, if anyone: as the current key of an agent, or as a revoked key. */
export interface KeyUse {
  agentId: string;
  revoked: boolean;
}

export interface IssueFacts {
  publicKey: string;
  /** The agent the caller names (rotation or renewal); undefined for a new agent. */
  agentId: string | undefined;
  principal: Principal | undefined;
  /** The identity of `agentId`, if it names one. */
  existing: IdentitySnapshot | null;
  keyUse: KeyUse | null;
  now: Date;
  ttlSeconds: number;
  /** The id a new agent gets. */
  newAgentId: string;
}

export interface IssuedIdentity {
  agentId: string;
  accountId: string;
  publicKey: string;
  issuedAt: Date;
  expiresAt: Date;
}

export type IssueDecision =
  | { kind: 'create'; identity: IssuedIdentity }
  /** A new key for an existing agent: the old one is revoked (unless it was revoked already). */
  | { kind: 'rotate'; identity: IssuedIdentity; revokedPublicKey: string | null }
  /** The same key again: a new JWT with a new expiry. */
  | { kind: 'renew'; identity: IssuedIdentity };

/** Identities belong to an account: a request without one (a platform service acting for itself) cannot own one. */
export function requireAccount(principal: Principal | undefined): Principal {
  if (principal) return principal;
  throw new ContractError(
    'UNAUTHENTICATED',
    'Agent identities are issued to an account: the request must carry the caller (Ioa-Principal), as the gateway sends it',
  );
}

/**
 * Another account's identity is NOT_FOUND, not FORBIDDEN, so agent ids cannot be probed for their owners; an admin
 * acts on every account's.
 */
export function visibleTo<Identity extends IdentitySnapshot>(
  identity: Identity | null,
  principal: Principal,
  agentId: string,
): Identity {
  if (identity && (principal.role === 'admin' || identity.accountId === principal.accountId)) return identity;
  throw new ContractError('NOT_FOUND', `Agent identity "${agentId}" does not exist`, { agentId });
}

export function decideIssue(facts: IssueFacts): IssueDecision {
  const principal = requireAccount(facts.principal);
  if (facts.keyUse?.revoked) {
    throw new ContractError(
      'CONFLICT',
      'This public key was revoked and is refused for good; make a new key pair and send its public key',
      { publicKey: facts.publicKey },
    );
  }
  if (facts.keyUse && facts.keyUse.agentId !== facts.agentId) {
    throw new ContractError('CONFLICT', 'This public key already identifies another agent; one key names one agent', {
      publicKey: facts.publicKey,
    });
  }
  const lifetime = { issuedAt: facts.now, expiresAt: new Date(facts.now.getTime() + facts.ttlSeconds * 1000) };
  if (facts.agentId === undefined) {
    const identity = { agentId: facts.newAgentId, accountId: principal.accountId, publicKey: facts.publicKey };
    return { kind: 'create', identity: { ...identity, ...lifetime } };
  }
  // An agent id is only ever chosen by the registry: naming one that has no identity could claim an agent someone
  // else runs (a hosted agent, a card registered before identities existed).
  const existing = visibleTo(facts.existing, principal, facts.agentId);
  const identity = { agentId: existing.agentId, accountId: existing.accountId, publicKey: facts.publicKey };
  if (existing.publicKey === facts.publicKey) return { kind: 'renew', identity: { ...identity, ...lifetime } };
  return {
    kind: 'rotate',
    identity: { ...identity, ...lifetime },
    revokedPublicKey: existing.revokedAt ? null : existing.publicKey,
  };
}

export type RevokeDecision = { kind: 'revoke'; publicKey: string; revokedAt: Date } | { kind: 'already-revoked' };

/** Revoking twice is not an error: the second call finds the key revoked and changes nothing. */
export function decideRevoke(
  identity: IdentitySnapshot | null,
  principal: Principal | undefined,
  agentId: string,
  now: Date,
): RevokeDecision {
  const existing = visibleTo(identity, requireAccount(principal), agentId);
  if (existing.revokedAt) return { kind: 'already-revoked' };
  return { kind: 'revoke', publicKey: existing.publicKey, revokedAt: now };
}
