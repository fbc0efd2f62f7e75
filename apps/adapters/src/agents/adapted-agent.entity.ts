import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { AdaptedEndpointKind } from '@ioa/contracts';

/** Endpoint settings that are not secret (kept as JSON so each kind can add its own). */
export interface EndpointSettings {
  model?: string;
  systemPrompt?: string;
  timeoutMs?: number;
}

/**
 * An agent the adapters service speaks for. The id is the registry's card id; the card itself lives in the
 * registry, while how to reach the endpoint — and its secret — lives only here.
 */
@Entity({ name: 'adapted_agents' })
export class AdaptedAgentEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  name: string;

  @Column({ type: 'varchar', length: 200 })
  owner: string;

  @Column({ type: 'varchar', length: 16 })
  kind: AdaptedEndpointKind;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  settings: EndpointSettings;

  /**
   * The credential toward the agent (the `openai` API key, the `a2a` / `mcp` bearer token, the `http` signing
   * secret), sealed with AES-256-GCM under the master key (`SecretBox`); opened only by `AgentTargets` for a call.
   * Never leaves this service, never logged.
   */
  @Column({ type: 'text', nullable: true })
  secret: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
