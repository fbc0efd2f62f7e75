import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An agent's NATS identity (table `registry.agent_identities`): which account owns the agent id and which public key
 * it connects with now. Never a seed and never a JWT: the agent keeps its seed, and a JWT is re-made on demand.
 */
@Entity({ name: 'agent_identities' })
export class AgentIdentityEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Index('agent_identities_account_idx')
  @Column({ name: 'account_id', type: 'varchar', length: 200 })
  accountId: string;

  /** The current key: one key names one agent, so it is unique. */
  @Index('agent_identities_public_key_key', { unique: true })
  @Column({ name: 'public_key', type: 'varchar', length: 56 })
  publicKey: string;

  /** When the current JWT was issued. */
  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** Set when the current key was revoked; a later issue with a new key clears it. */
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}

/**
 * A key the broker must refuse for good (table `registry.agent_identity_revoked_keys`): a rotated-out or revoked key.
 * The account JWT's `revocations` are built from all of these rows, so every push is the complete list.
 */
@Entity({ name: 'agent_identity_revoked_keys' })
export class RevokedAgentKeyEntity {
  @PrimaryColumn({ name: 'public_key', type: 'varchar', length: 56 })
  publicKey: string;

  @Index('agent_identity_revoked_keys_agent_idx')
  @Column({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Column({ name: 'revoked_at', type: 'timestamptz' })
  revokedAt: Date;
}
