import { existsSync, readFileSync } from 'node:fs';
import {
  Algorithms,
  decode,
  encodeUser,
  fromPublic,
  type Account,
  type KeyPair,
  type RevocationList,
} from '@nats-io/jwt';
import type { NatsConnection } from '@nats-io/transport-node';
import { encodeIoaAccountJwt, readKeyPair } from './provision-trust.js';
import { trustLayout } from './trust-layout.js';

/**
 * Agent identities, the registry's side of the trust (it is the only principal that holds these keys):
 * - an agent's user JWT is named by the agent id and signed by the IOA account's scoped signing key for role
 *   "agent", so the broker gives it exactly the agent template (its own `ioa.agent.<id>.>` and `_INBOX.<id>.>`),
 *   whatever the JWT says; it expires, and it carries the owning account as a tag for operators reading it;
 * - a revocation re-signs the IOA account JWT with a `revocations` entry (user public key -> the time from which its
 *   JWTs are void) with the operator signing key, and pushes it to the running broker as a SYS-account user on
 *   `$SYS.REQ.CLAIMS.UPDATE`. The broker then closes the revoked user's connections and refuses new ones at once
 *   ("User Authentication Revoked", checked on nats-server 2.9.10 with the `full` resolver).
 */

/** What issuing and revoking needs, and nothing more: the IOA account's identity seed and the operator seed stay out. */
export interface AgentIdentityKeys {
  /** The IOA account (public key only: it names the account in the JWTs). */
  ioaAccount: KeyPair;
  /** The IOA account's scoped signing key for agents. */
  agentSigning: KeyPair;
  /** Signs account JWT updates (revocations). */
  operatorSigning: KeyPair;
  /** A SYS-account user's `.creds`, to push account JWT updates to the broker. */
  systemCreds: Uint8Array;
}

/**
 * Reads the identity keys from a trust directory in `trustLayout`'s layout (`IOA_TRUST_DIR`; in Kubernetes the
 * registry's own Secret, mounted with the same file names). A missing file is a clear error at boot.
 */
export function loadAgentIdentityKeys(trustRoot: string): AgentIdentityKeys {
  const layout = trustLayout(trustRoot);
  const needed = [layout.ioaAccountJwt, layout.agentSigningSeed, layout.operatorSigningSeed, layout.systemCreds];
  const missing = needed.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new Error(
      `IOA_TRUST_DIR is ${trustRoot} but ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist: ` +
        'point it at the directory provisioned by @ioa/trust (npm start writes .data/trust)',
    );
  }
  const account = decode<Account>(readFileSync(layout.ioaAccountJwt, 'utf8').trim());
  return {
    ioaAccount: fromPublic(account.sub),
    agentSigning: readKeyPair(layout.agentSigningSeed),
    operatorSigning: readKeyPair(layout.operatorSigningSeed),
    systemCreds: readFileSync(layout.systemCreds),
  };
}

/**
 * Why `publicKey` is not an nkey user public key, or undefined when it is (prefix, base32 and CRC16 checksum, as the
 * broker will check them): a typo in one character is caught here, not at the agent's first connect.
 */
export function userPublicKeyProblem(publicKey: string): string | undefined {
  if (!publicKey.startsWith('U')) return 'publicKey must be a user public key (it starts with "U")';
  try {
    fromPublic(publicKey);
    return undefined;
  } catch {
    return 'publicKey is not a valid nkey (wrong length, characters or checksum)';
  }
}

export interface AgentUserClaims {
  agentId: string;
  publicKey: string;
  accountId: string;
  expiresAt: Date;
}

/** The tag that names the owning platform account in an agent's user JWT. */
export function accountTag(accountId: string): string {
  return `account:${accountId}`;
}

/**
 * An agent's user JWT. It carries no permissions of its own (`scopedUser`): a JWT signed by a scoped key with
 * permissions is refused by the broker, and the template is the only source of the agent's rights.
 */
export function encodeAgentUserJwt(keys: AgentIdentityKeys, claims: AgentUserClaims): Promise<string> {
  return encodeUser(
    claims.agentId,
    fromPublic(claims.publicKey),
    keys.ioaAccount,
    { tags: [accountTag(claims.accountId)] },
    {
      scopedUser: true,
      signer: keys.agentSigning,
      algorithm: Algorithms.v2,
      exp: Math.floor(claims.expiresAt.getTime() / 1000),
    },
  );
}

/**
 * The IOA account JWT with exactly these revocations (the registry passes every key it ever revoked, so whichever
 * update the broker keeps last is complete). Each entry voids the key's JWTs issued at or before its time.
 */
export function encodeRevocationsAccountJwt(keys: AgentIdentityKeys, revocations: RevocationList): Promise<string> {
  return encodeIoaAccountJwt(keys.ioaAccount, keys.operatorSigning, keys.agentSigning, revocations);
}

/** A revocation time in JWT units (seconds since the epoch), as the account JWT's `revocations` entries hold it. */
export function revocationTime(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}

/** Subject on which a SYS-account user hands the broker an updated account JWT (the `full` resolver stores it). */
export const CLAIMS_UPDATE_SUBJECT = '$SYS.REQ.CLAIMS.UPDATE';

interface ClaimsUpdateReply {
  data?: { code?: number; message?: string };
  error?: { code?: number; description?: string };
}

/** Pushes an account JWT to the running broker; throws with the broker's reason when it refuses it. */
export async function pushAccountJwt(
  systemConnection: NatsConnection,
  accountJwt: string,
  timeoutMs = 5000,
): Promise<void> {
  const reply = await systemConnection.request(CLAIMS_UPDATE_SUBJECT, accountJwt, { timeout: timeoutMs });
  const body = reply.json<ClaimsUpdateReply>();
  if (body.error || body.data?.code !== 200) {
    const reason = body.error?.description ?? body.data?.message ?? reply.string();
    throw new Error(`the broker refused the account JWT update: ${reason}`);
  }
}
