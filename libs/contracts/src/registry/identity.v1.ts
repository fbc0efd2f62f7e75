import { IsBoolean, IsDateString, IsIn, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { requestContract } from '../common/contract.js';
import { IsIntegerIn, IsText } from '../common/validation.js';
import { Nullable } from '../common/payload-bounds.js';

/*
 * Agent identities: every agent connects to the broker as its own NATS user. The agent makes its own nkey pair (the
 * seed never leaves it); its account hands the registry the PUBLIC key and gets back a user JWT named by the agent
 * id, whose permissions the broker takes from the agent template (publish and subscribe under `ioa.agent.<id>.>`,
 * replies under `_INBOX.<id>.>`). These subjects are asked by the gateway for an authenticated account: they read
 * the `Ioa-Principal` header, which no agent may send on them.
 */

/**
 * An nkey user public key: "U" and 55 more base32 characters (the checksum is checked by the registry). The format
 * that `nk -gen user -pubout`, `createUser().getPublicKey()` of @nats-io/nkeys and nats.go's `nkeys` produce.
 */
export const NKEY_USER_PUBLIC_KEY_PATTERN = /^U[A-Z2-7]{55}$/;

/** The longest life of an agent's JWT: a year; the registry's default is shorter (its config). */
export const MAX_AGENT_CREDENTIAL_SECONDS = 365 * 24 * 3600;

export const AGENT_IDENTITY_STATUSES = ['active', 'revoked'] as const;
export type AgentIdentityStatus = (typeof AGENT_IDENTITY_STATUSES)[number];

// ---------------------------------------------------------------------------------------------------------------
// issue (and rotate)

/**
 * Issue NATS credentials for an agent's public key. Without `agentId` a new agent id is made, owned by the caller's
 * account. With the id of an identity the caller's account owns (or any, for an admin), the new key ROTATES it: a
 * new JWT for the new key, and the old key is revoked at once. The same key again renews the JWT's expiry.
 * @since 1
 */
export class IssueAgentIdentityV1Request {
  /** The agent's nkey user public key ("U…"); never the seed. */
  @Matches(NKEY_USER_PUBLIC_KEY_PATTERN, { message: 'publicKey must be an nkey user public key ("U" + 55 base32)' })
  publicKey: string;

  /** The agent to rotate or renew; absent for a new agent. */
  @IsOptional()
  @IsUUID()
  agentId?: string;

  /**
   * A shorter life than the registry's default for this JWT (never a longer one): an agent that renews often loses
   * less when its seed leaks.
   */
  @IsOptional()
  @IsIntegerIn(1, MAX_AGENT_CREDENTIAL_SECONDS)
  expiresInSeconds?: number;
}

/** @since 1 */
export class IssueAgentIdentityV1Response {
  @IsUUID()
  agentId: string;

  /** The account that owns the agent (and may rotate or revoke it). */
  @IsText(200)
  accountId: string;

  /** The user JWT: with the agent's seed it makes the `.creds` file, or pass it to a client's JWT authenticator. */
  @IsString()
  jwt: string;

  @IsDateString()
  expiresAt: string;

  /** True for a new agent id; false when an existing identity was rotated or renewed. */
  @IsBoolean()
  created: boolean;

  /** The key this issue revoked (a rotation), if any. */
  @IsOptional()
  @Nullable()
  @Matches(NKEY_USER_PUBLIC_KEY_PATTERN)
  revokedPublicKey: string | null;
}

export const IssueAgentIdentityV1 = requestContract<IssueAgentIdentityV1Request, IssueAgentIdentityV1Response>({
  subject: 'ioa.registry.identity.issue.v1',
  owner: 'registry',
  request: IssueAgentIdentityV1Request,
  response: IssueAgentIdentityV1Response,
  summary:
    "Issue an agent's NATS user JWT for its public key (Ioa-Principal: the owning account); again with a new key, rotate it.",
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// get / revoke

/** What the registry keeps of an agent's identity (never a seed, never the JWT). @since 1 */
export class AgentIdentityV1 {
  @IsUUID()
  agentId: string;

  @IsText(200)
  accountId: string;

  /** The key the agent connects with now (the last one, once revoked). */
  @Matches(NKEY_USER_PUBLIC_KEY_PATTERN)
  publicKey: string;

  @IsIn(AGENT_IDENTITY_STATUSES)
  status: AgentIdentityStatus;

  /** When the current JWT was issued. */
  @IsDateString()
  issuedAt: string;

  @IsDateString()
  expiresAt: string;

  @IsOptional()
  @Nullable()
  @IsDateString()
  revokedAt: string | null;

  /** Keys this agent used before (rotated or revoked), which the broker refuses. */
  @IsString({ each: true })
  revokedPublicKeys: string[];
}

/** @since 1 */
export class AgentIdentityV1Request {
  @IsUUID()
  agentId: string;
}

export const GetAgentIdentityV1 = requestContract<AgentIdentityV1Request, AgentIdentityV1>({
  subject: 'ioa.registry.identity.get.v1',
  owner: 'registry',
  request: AgentIdentityV1Request,
  response: AgentIdentityV1,
  summary: "An agent's identity; NOT_FOUND for another account's agent unless the caller is an admin.",
  since: '1',
});

export const RevokeAgentIdentityV1 = requestContract<AgentIdentityV1Request, AgentIdentityV1>({
  subject: 'ioa.registry.identity.revoke.v1',
  owner: 'registry',
  request: AgentIdentityV1Request,
  response: AgentIdentityV1,
  summary:
    "Revoke an agent's current key: the broker disconnects it and refuses it from then on; its card goes offline.",
  since: '1',
});
