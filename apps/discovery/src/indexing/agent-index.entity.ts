import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AgentCardV1, AgentStatus } from '@ioa/contracts';

/**
 * Discovery's projection of the registry: one row per agent with its card and the card's embedding. Written only
 * from registry events (and the boot-time reconciliation), read by search. Writes go through hand-written SQL in
 * `AgentIndexRepository` because they need guards (revision, tombstones) and vector casts TypeORM cannot express.
 */
@Entity({ name: 'agent_index' })
export class AgentIndexEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb' })
  card: AgentCardV1;

  @Column({ type: 'text' })
  status: AgentStatus;

  @Column({ type: 'integer' })
  revision: number;

  /** Lowercased tags of all skills, for the `tags` filter (GIN-indexed, matched with `&&`). */
  @Column({ name: 'skill_tags', type: 'text', array: true })
  skillTags: string[];

  /**
   * Dimension-less `vector` column: the dimension is a property of the model, stored beside it, and the HNSW index
   * is a partial expression index per dimension (see the migration and `IndexMaintenanceService`).
   */
  @Column({ type: 'vector', select: false })
  embedding: string;

  @Column({ type: 'text' })
  model: string;

  @Column({ type: 'integer' })
  dimension: number;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/**
 * Ids of agents that were deregistered, with the revision they were removed at. Without them a late or replayed
 * "registered" event (or a reconciliation that listed the agent just before it left) would resurrect the agent.
 */
@Entity({ name: 'removed_agent' })
export class RemovedAgentEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Column({ type: 'integer' })
  revision: number;

  @Column({ name: 'removed_at', type: 'timestamptz' })
  removedAt: Date;
}
