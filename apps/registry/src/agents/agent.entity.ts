import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { AgentEndpointV1, AgentProviderV1, AgentSkillV1, AgentStatus } from '@ioa/contracts';

/**
 * One registered agent, as the registry stores it (table `registry.agents`). Never sent over the wire: the mapper
 * turns it into an `AgentCardV1`. Nested parts of the card (skills, endpoint, provider, metadata) are jsonb: they are
 * read and written with the card, never queried on their own here (discovery keeps its own projection for search).
 */
@Entity({ name: 'agents' })
export class AgentEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Index('agents_name_key', { unique: true })
  @Column({ type: 'varchar', length: 63 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'jsonb' })
  skills: AgentSkillV1[];

  @Column({ name: 'default_input_modes', type: 'jsonb' })
  defaultInputModes: string[];

  @Column({ name: 'default_output_modes', type: 'jsonb' })
  defaultOutputModes: string[];

  @Index('agents_owner_idx')
  @Column({ type: 'varchar', length: 200 })
  owner: string;

  @Column({ type: 'jsonb' })
  endpoint: AgentEndpointV1;

  @Column({ type: 'varchar', length: 40 })
  version: string;

  @Column({ type: 'jsonb', nullable: true })
  provider: AgentProviderV1 | null;

  @Column({ name: 'documentation_url', type: 'text', nullable: true })
  documentationUrl: string | null;

  @Column({ type: 'jsonb' })
  metadata: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16 })
  status: AgentStatus;

  /** +1 on every change of the card (not on heartbeats); events carry it so consumers can drop stale ones. */
  @Column({ type: 'integer' })
  revision: number;

  @Column({ name: 'registered_at', type: 'timestamptz' })
  registeredAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt: Date;
}
