import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TaskBriefV1, TaskState } from '@ioa/contracts';

/**
 * One task (table `scheduler.tasks`). Ids are minted by chat (so a group can wait on a task before the scheduler has
 * stored it). Never sent over the wire: `toTaskV1` maps it. Changed only while its goal's row is locked.
 */
@Entity({ name: 'tasks' })
export class TaskEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'goal_id', type: 'uuid' })
  goalId: string;

  @Column({ name: 'group_id', type: 'uuid' })
  groupId: string;

  /** The goal's own parent task, when this task runs inside a sub-team. */
  @Column({ name: 'parent_task_id', type: 'uuid', nullable: true })
  parentTaskId: string | null;

  @Column({ name: 'assigner_id', type: 'uuid' })
  assignerId: string;

  @Column({ name: 'assignee_id', type: 'uuid' })
  assigneeId: string;

  @Column({ name: 'assignee_name', type: 'varchar', length: 100 })
  assigneeName: string;

  @Column({ type: 'varchar', length: 8 })
  mode: 'sync' | 'async';

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'text' })
  abstract: string;

  @Column({ type: 'jsonb', nullable: true })
  brief: TaskBriefV1 | null;

  @Column({ type: 'varchar', length: 16 })
  state: TaskState;

  @Column({ type: 'text', nullable: true })
  result: string | null;

  @Column({ name: 'status_message', type: 'text', nullable: true })
  statusMessage: string | null;

  @Column({ type: 'timestamptz' })
  deadline: Date;

  /** Deliveries tried so far (to the current assignee). */
  @Column({ type: 'integer' })
  attempts: number;

  /**
   * When the next delivery is due, while the task still has to reach its assignee; null once delivered. A claimed
   * delivery pushes it forward by a lease, so a crash mid-delivery only delays it.
   */
  @Column({ name: 'next_dispatch_at', type: 'timestamptz', nullable: true })
  nextDispatchAt: Date | null;

  @Column({ name: 'child_goal_id', type: 'uuid', nullable: true })
  childGoalId: string | null;

  /** The chat message that assigned the task. */
  @Column({ name: 'message_id', type: 'uuid' })
  messageId: string;

  /** +1 on every change; `TaskUpdatedV1` carries `<id>:<version>` as its message id. */
  @Column({ type: 'integer' })
  version: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
