import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An event written in the same transaction as the transition it reports (table `chat.outbox`): a crash or a broker
 * outage between commit and publish delays the event instead of losing it. Rows of one group are inserted under
 * its row lock, so id order is the group's commit order, and the relay publishes in id order.
 */
@Entity({ name: 'outbox' })
export class OutboxEventEntity {
  // bigint comes back from `pg` as a string; it is only ever passed back to the database.
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  subject: string;

  /** JetStream `Nats-Msg-Id`: a re-publish after a failure is dropped by the stream. */
  @Column({ name: 'message_id', type: 'varchar', length: 200 })
  messageId: string;

  @Column({ type: 'jsonb' })
  payload: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
