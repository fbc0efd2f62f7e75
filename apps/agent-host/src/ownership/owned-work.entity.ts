import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What agent-host owns durably: a task it accepted or a turn it was granted. */
export type OwnedWorkKind = 'task' | 'turn';

/** A piece of accepted, unfinished work and its lease (see `work-lease.service.ts`). */
@Entity({ name: 'owned_work', schema: 'agent_host' })
export class OwnedWorkEntity {
  @PrimaryColumn('text')
  kind: OwnedWorkKind;

  /** `<agentId>:<taskId>` for a task (a task moved to another agent is new work), `<groupId>:<turn>` for a turn. */
  @PrimaryColumn('text', { name: 'work_key' })
  workKey: string;

  /** Who may take it over: the hosted agent's name for a task, `communicator` for a turn. */
  @Column('text')
  scope: string;

  /** The assignment or the turn grant as received (already validated against its contract). */
  @Column('jsonb')
  payload: unknown;

  /** The replica holding it (`AGENT_HOST_INSTANCE_ID`, or a fresh id per process). */
  @Column('text', { name: 'owner_id' })
  ownerId: string;

  @Column('timestamptz', { name: 'lease_expires_at' })
  leaseExpiresAt: Date;

  /** How many times a replica took it on (1 when accepted); bounds work that crashes every replica it reaches. */
  @Column('integer')
  claims: number;

  @Column('timestamptz', { name: 'accepted_at' })
  acceptedAt: Date;
}
