import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { HeldGroupEvent } from './group-feed.js';

/**
 * How far a group's events are in its goal's log (table `scheduler.group_feeds`, see `group-feed.ts`): the message
 * seq logged up to, and the events that arrived ahead of a gap. Written under the goal's row lock.
 */
@Entity({ name: 'group_feeds' })
export class GroupFeedEntity {
  @PrimaryColumn({ name: 'group_id', type: 'uuid' })
  groupId: string;

  @Column({ name: 'goal_id', type: 'uuid' })
  goalId: string;

  @Column({ name: 'logged_seq', type: 'integer' })
  loggedSeq: number;

  /** Events held until the messages before them arrive, in the group's order (their wire form). */
  @Column({ type: 'jsonb' })
  held: HeldGroupEvent[];

  /** When the oldest held event arrived; null when none is held. The sweeper releases feeds held too long. */
  @Column({ name: 'held_since', type: 'timestamptz', nullable: true })
  heldSince: Date | null;
}
