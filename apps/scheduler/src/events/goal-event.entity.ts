import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GoalEventType } from '@ioa/contracts';

/** One entry of a goal's ordered event log (table `scheduler.goal_events`), what the gateway streams as SSE. */
@Entity({ name: 'goal_events' })
export class GoalEventEntity {
  @PrimaryColumn({ name: 'goal_id', type: 'uuid' })
  goalId: string;

  @PrimaryColumn({ type: 'integer' })
  seq: number;

  @Column({ type: 'varchar', length: 16 })
  type: GoalEventType;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @Column({ type: 'timestamptz' })
  at: Date;

  /**
   * Identity of the fact this entry records when it comes from another service's event (`message:<id>`), unique per
   * goal so a redelivered event is not logged twice. Null for the scheduler's own changes.
   */
  @Column({ name: 'source_key', type: 'varchar', length: 300, nullable: true })
  sourceKey: string | null;
}
