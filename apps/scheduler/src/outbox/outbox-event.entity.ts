import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An event written in the same transaction as the change it reports (table `scheduler.outbox`): a crash or a broker
 * outage between commit and publish delays the event instead of losing it. The relay publishes rows in id order and
 * deletes them; JetStream events carry `messageId`, so a re-publish after a crash is dropped by the stream.
 */
@Entity({ name: 'outbox' })
export class OutboxEventEntity {
  // bigint comes back from `pg` as a string; it is only ever passed back to the database.
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  /** The concrete subject (addressed subjects have the recipient's id filled in). */
  @Column({ type: 'varchar', length: 200 })
  subject: string;

  /** The JetStream stream of the event, or null for a core NATS event. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  stream: string | null;

  @Column({ name: 'message_id', type: 'varchar', length: 200 })
  messageId: string;

  @Column({ type: 'jsonb' })
  payload: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
