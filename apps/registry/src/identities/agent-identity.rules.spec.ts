import 'reflect-metadata';
import { ContractError, type Principal } from '@ioa/contracts';
import { decideIssue, decideRevoke, type IdentitySnapshot, type IssueFacts } from './agent-identity.rules.js';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const KEY_A = `U${'A'.repeat(55)}`;
const KEY_B = `U${'B'.repeat(55)}`;
const ALICE: Principal = { accountId: 'alice', role: 'member' };
const BOB: Principal = { accountId: 'bob', role: 'member' };
const ADMIN: Principal = { accountId: 'local-admin', role: 'admin' };
const AGENT = '8a3c7f5e-0c2d-4b8e-9d55-0f1f3f6b2a10';

function identity(overrides: Partial<IdentitySnapshot> = {}): IdentitySnapshot {
  return { agentId: AGENT, accountId: 'alice', publicKey: KEY_A, revokedAt: null, ...overrides };
}

function facts(overrides: Partial<IssueFacts> = {}): IssueFacts {
  return {
    publicKey: KEY_B,
    agentId: undefined,
    principal: ALICE,
    existing: null,
    keyUse: null,
    now: NOW,
    ttlSeconds: 3600,
    newAgentId: 'new-agent-id',
    ...overrides,
  };
}

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ContractError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('issuing agent identities', () => {
  it('gives a new key a fresh agent id owned by the caller, valid for the TTL', () => {
    expect(decideIssue(facts())).toEqual({
      kind: 'create',
      identity: {
        agentId: 'new-agent-id',
        accountId: 'alice',
        publicKey: KEY_B,
        issuedAt: NOW,
        expiresAt: new Date('2026-11-23T13:00:00.000Z'),
      },
    });
  });

  it('rotates an existing identity to a new key and revokes the old key', () => {
    const decision = decideIssue(facts({ agentId: AGENT, existing: identity() }));
    expect(decision).toMatchObject({
      kind: 'rotate',
      identity: { agentId: AGENT, publicKey: KEY_B },
      revokedPublicKey: KEY_A,
    });
  });

  it('renews the JWT when the same key is sent again', () => {
    const decision = decideIssue(
      facts({ agentId: AGENT, publicKey: KEY_A, existing: identity(), keyUse: { agentId: AGENT, revoked: false } }),
    );
    expect(decision).toMatchObject({ kind: 'renew', identity: { publicKey: KEY_A } });
  });

  it('reinstates a revoked identity with a new key without revoking anything again', () => {
    const decision = decideIssue(facts({ agentId: AGENT, existing: identity({ revokedAt: NOW }) }));
    expect(decision).toMatchObject({ kind: 'rotate', revokedPublicKey: null });
  });

  it("lets an admin rotate another account's agent, which stays that account's", () => {
    const decision = decideIssue(facts({ agentId: AGENT, principal: ADMIN, existing: identity() }));
    expect(decision.identity.accountId).toBe('alice');
  });

  it("answers NOT_FOUND for another account's agent, so ids cannot be probed for owners", () => {
    expect(refusal(() => decideIssue(facts({ agentId: AGENT, principal: BOB, existing: identity() })))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses to invent an identity for an agent id that has none (it could be an agent someone else runs)', () => {
    expect(refusal(() => decideIssue(facts({ agentId: AGENT })))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a revoked key for good', () => {
    const refused = refusal(() => decideIssue(facts({ keyUse: { agentId: AGENT, revoked: true } })));
    expect(refused).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/revoked/) });
  });

  it("refuses another agent's current key", () => {
    const refused = refusal(() => decideIssue(facts({ keyUse: { agentId: 'someone-else', revoked: false } })));
    expect(refused).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/another agent/) });
  });

  it('refuses a request without an account', () => {
    expect(refusal(() => decideIssue(facts({ principal: undefined })))).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('revoking agent identities', () => {
  it("revokes the current key of the caller's agent", () => {
    expect(decideRevoke(identity(), ALICE, AGENT, NOW)).toEqual({ kind: 'revoke', publicKey: KEY_A, revokedAt: NOW });
  });

  it('changes nothing the second time', () => {
    expect(decideRevoke(identity({ revokedAt: NOW }), ALICE, AGENT, NOW)).toEqual({ kind: 'already-revoked' });
  });

  it('answers NOT_FOUND to another account and to an unknown id; an admin may revoke any', () => {
    expect(refusal(() => decideRevoke(identity(), BOB, AGENT, NOW))).toMatchObject({ code: 'NOT_FOUND' });
    expect(refusal(() => decideRevoke(null, ADMIN, AGENT, NOW))).toMatchObject({ code: 'NOT_FOUND' });
    expect(decideRevoke(identity(), ADMIN, AGENT, NOW)).toMatchObject({ kind: 'revoke' });
  });
});
