import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A task handed to a webhook that answered `202`: its result arrives later as a signed callback, on whichever
 * replica the callback reaches, so the pending task is recorded here rather than in one replica's memory.
 */
@Entity({ name: 'webhook_tasks' })
export class WebhookTaskEntity {
  @PrimaryColumn({ name: 'task_id', type: 'uuid' })
  taskId: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Set when the callback delivered a final result (a repeated callback is then acknowledged and ignored). */
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
