import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An event written in the same transaction as the change it reports (table `registry.outbox`), so that a crash or a
 * broker outage between commit and publish delays the event instead of losing it. The relay publishes rows in id
 * order with their `messageId` (JetStream drops re-publishes) and deletes them.
 */
@Entity({ name: 'outbox' })
export class OutboxEventEntity {
  // bigint comes back from `pg` as a string; it is only ever passed back to the database.
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  /** Subject of a contract event (`ioa.registry.agent.registered.v1`, ...). */
  @Column({ type: 'varchar', length: 200 })
  subject: string;

  @Column({ name: 'message_id', type: 'varchar', length: 200 })
  messageId: string;

  /** The event's contract payload (always a JSON object). */
  @Column({ type: 'jsonb' })
  payload: object;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
