import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GoalStatus, TeamMemberV1 } from '@ioa/contracts';

/**
 * One goal (table `scheduler.goals`). Never sent over the wire: `toGoalV1` maps it. Every change of a goal happens
 * in a transaction that holds this row locked, which is also what makes the per-goal event `seq` race-free.
 */
@Entity({ name: 'goals' })
export class GoalEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  goal: string;

  @Column({ type: 'varchar', length: 32 })
  status: GoalStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  /** Agent names or ids the submitter named (explicit team), or null for autonomous team formation. */
  @Column({ name: 'requested_members', type: 'jsonb', nullable: true })
  requestedMembers: string[] | null;

  /** The team, leader first. */
  @Column({ type: 'jsonb' })
  team: TeamMemberV1[];

  /** The submitter's Idempotency-Key header, if any: a retry with the same key gets this goal back. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 200, nullable: true })
  idempotencyKey: string | null;

  /**
   * The account the goal belongs to (`Ioa-Principal` of the submit; a sub-goal inherits its parent's); NULL when a
   * platform service submitted it. Only that account and admins see or act on the goal.
   */
  @Column({ name: 'account_id', type: 'varchar', length: 200, nullable: true })
  accountId: string | null;

  @Column({ name: 'group_id', type: 'uuid', nullable: true })
  groupId: string | null;

  @Column({ type: 'text', nullable: true })
  conclusion: string | null;

  @Column({ name: 'max_turns', type: 'integer' })
  maxTurns: number;

  @Column({ type: 'integer' })
  depth: number;

  @Column({ name: 'max_depth', type: 'integer' })
  maxDepth: number;

  @Column({ name: 'parent_task_id', type: 'uuid', nullable: true })
  parentTaskId: string | null;

  /** The goal of the parent task, so a canceled goal finds its sub-goals without a join through tasks. */
  @Column({ name: 'parent_goal_id', type: 'uuid', nullable: true })
  parentGoalId: string | null;

  @Column({ name: 'budget_tokens', type: 'integer', nullable: true })
  budgetTokens: number | null;

  @Column({ name: 'budget_seconds', type: 'integer', nullable: true })
  budgetSeconds: number | null;

  @Column({ name: 'prompt_tokens', type: 'integer' })
  promptTokens: number;

  @Column({ name: 'completion_tokens', type: 'integer' })
  completionTokens: number;

  @Column({ name: 'model_calls', type: 'integer' })
  modelCalls: number;

  /**
   * Budgets count per round: from submission, and again from each follow-up that re-opens a concluded goal (a
   * person asking more gets a fresh allowance). These mark where the current round started.
   */
  @Column({ name: 'round_started_at', type: 'timestamptz' })
  roundStartedAt: Date;

  @Column({ name: 'round_start_tokens', type: 'integer' })
  roundStartTokens: number;

  /** Set when this round's budget forced a conclusion, so it is asked for once. */
  @Column({ name: 'conclusion_forced_at', type: 'timestamptz', nullable: true })
  conclusionForcedAt: Date | null;

  /** The conversation waits for the person (a member asked them); an active goal is then `input_required`. */
  @Column({ name: 'waiting_for_user', type: 'boolean' })
  waitingForUser: boolean;

  /** Team formation's claim on this goal (crash safety: an expired claim is taken over by the sweeper). */
  @Column({ name: 'formation_lease_until', type: 'timestamptz', nullable: true })
  formationLeaseUntil: Date | null;

  /** When the group of an ended (failed or canceled) goal was closed; null while that is still to do. */
  @Column({ name: 'group_closed_at', type: 'timestamptz', nullable: true })
  groupClosedAt: Date | null;

  /** The last `seq` of this goal's event log; incremented under the row lock. */
  @Column({ name: 'last_event_seq', type: 'integer' })
  lastEventSeq: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;
}
