import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TaskState } from '@ioa/contracts';

/**
 * The group's task ledger (table `chat.group_tasks`): the chat's copy of each task it minted, kept current from
 * `TaskUpdatedV1`, so moves can be validated (pause only on unfinished tasks, no conclusion while sync tasks run)
 * and prompts can show the tasks without asking the scheduler.
 */
@Entity({ name: 'group_tasks' })
export class GroupTaskEntity {
  @PrimaryColumn({ name: 'task_id', type: 'uuid' })
  taskId: string;

  @Column({ name: 'group_id', type: 'uuid' })
  groupId: string;

  @Column({ name: 'assigner_id', type: 'uuid' })
  assignerId: string;

  @Column({ name: 'assignee_id', type: 'uuid' })
  assigneeId: string;

  @Column({ name: 'assignee_name', type: 'varchar', length: 63 })
  assigneeName: string;

  @Column({ type: 'varchar', length: 8 })
  mode: 'sync' | 'async';

  @Column({ type: 'varchar', length: 300 })
  abstract: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'varchar', length: 32 })
  state: TaskState;

  /** The result or the failure reason, bounded; the full text stays in the scheduler's task. */
  @Column({ type: 'text', nullable: true })
  result: string | null;

  @Column({ name: 'status_message', type: 'text', nullable: true })
  statusMessage: string | null;

  /** `updatedAt` of the last scheduler version applied. */
  @Column({ name: 'source_updated_at', type: 'timestamptz', nullable: true })
  sourceUpdatedAt: Date | null;

  /** Ledger order: the seq of the assigning message, then the task's place in it. */
  @Column({ name: 'message_seq', type: 'integer' })
  messageSeq: number;

  @Column({ type: 'integer' })
  ordinal: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
