import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GroupState } from '@ioa/contracts';

/**
 * One group chat (table `chat.groups`): the conversation's state machine fields. The row is the group's lock —
 * every transition reads it `FOR UPDATE` and writes it back in the same transaction. Never sent over the wire.
 */
@Entity({ name: 'groups' })
export class GroupEntity {
  @PrimaryColumn('uuid')
  id: string;

  /** One group per goal: a retried CreateGroupV1 returns the existing group. */
  @Column({ name: 'goal_id', type: 'uuid' })
  goalId: string;

  @Column({ type: 'text' })
  goal: string;

  @Column({ type: 'varchar', length: 32 })
  state: GroupState;

  @Column({ name: 'leader_id', type: 'uuid' })
  leaderId: string;

  /** An agent id, `user`, or null when nobody may speak. */
  @Column({ name: 'current_speaker', type: 'varchar', length: 64, nullable: true })
  currentSpeaker: string | null;

  @Column({ type: 'integer' })
  turn: number;

  @Column({ name: 'max_turns', type: 'integer' })
  maxTurns: number;

  /** The limit the group was created with; each re-open extends `max_turns` by it. */
  @Column({ name: 'original_max_turns', type: 'integer' })
  originalMaxTurns: number;

  @Column({ name: 'turn_timeout_seconds', type: 'integer' })
  turnTimeoutSeconds: number;

  /** Set exactly when an agent holds the turn; the timeout sweeper looks for passed ones. */
  @Column({ name: 'turn_deadline', type: 'timestamptz', nullable: true })
  turnDeadline: Date | null;

  @Column({ name: 'awaiting_task_ids', type: 'jsonb' })
  awaitingTaskIds: string[];

  /** Who gets the turn when the current wait ends (sync assigner, pauser, or the member who asked the person). */
  @Column({ name: 'resume_speaker_id', type: 'varchar', length: 64, nullable: true })
  resumeSpeakerId: string | null;

  @Column({ type: 'text', nullable: true })
  conclusion: string | null;

  @Column({ name: 'last_seq', type: 'integer' })
  lastSeq: number;

  /** +1 per transition; state-change events carry it in their message id. */
  @Column({ type: 'integer' })
  version: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
