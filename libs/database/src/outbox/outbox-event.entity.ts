import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An event written in the same transaction as the change it reports (table `outbox` in the service's own schema),
 * so that a crash or a broker outage between commit and publish delays the event instead of losing it. The relay
 * publishes rows in id order with their `messageId` (JetStream drops re-publishes) and deletes them. Rows of one
 * aggregate are written under its row lock, so their id order is that aggregate's commit order.
 *
 * Each service lists this entity in `DatabaseModule.forService({ entities })` and creates the table in one of its
 * own migrations (migrations are frozen history, so they spell the SQL out instead of importing it from here).
 */
@Entity({ name: 'outbox' })
export class OutboxEventEntity {
  // bigint comes back from `pg` as a string; it is only ever passed back to the database.
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  /**
   * The subject it is published on: the contract's, or for an addressed contract the recipient's concrete subject.
   * The relay finds the contract (and with it the JetStream stream, if any) in the catalog by this subject.
   */
  @Column({ type: 'varchar', length: 200 })
  subject: string;

  /** JetStream `Nats-Msg-Id`: a re-publish after a failure is dropped by the stream. */
  @Column({ name: 'message_id', type: 'varchar', length: 200 })
  messageId: string;

  /** The event's contract payload, exactly as it goes on the wire. */
  @Column({ type: 'jsonb' })
  payload: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
