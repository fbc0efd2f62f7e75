import { Injectable } from '@nestjs/common';
import { DataSource, In, LessThanOrEqual, type EntityManager } from 'typeorm';
import { OutboxEventEntity } from './outbox-event.entity.js';
import { subjectOf, type OutboxMessage } from './outbox-message.js';

@Injectable()
export class OutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Writes messages inside the caller's transaction: they exist if and only if the change they report commits. */
  async enqueue(manager: EntityManager, messages: OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await manager.insert(
      OutboxEventEntity,
      messages.map((message) => ({
        subject: subjectOf(message),
        messageId: message.messageId,
        // Round-trip through JSON so the row holds exactly what goes on the wire (dates as ISO strings). (jsonb of
        // any shape: TypeORM's deep-partial typing cannot follow `unknown`.)
        payload: JSON.parse(JSON.stringify(message.payload)) as never,
      })),
    );
  }

  /** A cheap look, without a transaction or a lock: is anything waiting? */
  hasPending(): Promise<boolean> {
    return this.dataSource.manager.exists(OutboxEventEntity);
  }

  /** The id of the newest row, or null when the outbox is empty. */
  async newestId(): Promise<string | null> {
    const newest = await this.dataSource.manager.find(OutboxEventEntity, {
      select: { id: true },
      order: { id: 'DESC' },
      take: 1,
    });
    return newest[0]?.id ?? null;
  }

  /**
   * Locks the oldest rows (up to `upToId`) (`FOR UPDATE`, without SKIP LOCKED), hands them to `publish`, and deletes the ones it
   * reports published (a prefix: `publish` returns how many), in one transaction. A second replica claiming at the
   * same time waits for the first and then finds those rows gone: every event is published by one replica, in id
   * order — which matters to core NATS subscribers, who see every publish (JetStream's de-duplication only protects
   * the stream). Returns how many rows were claimed.
   */
  claimOldest(limit: number, publish: (rows: OutboxEventEntity[]) => Promise<number>, upToId: string): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await manager.find(OutboxEventEntity, {
        where: { id: LessThanOrEqual(upToId) },
        order: { id: 'ASC' },
        take: limit,
        lock: { mode: 'pessimistic_write' },
      });
      if (rows.length === 0) return 0;
      const published = await publish(rows);
      if (published > 0) {
        await manager.delete(OutboxEventEntity, { id: In(rows.slice(0, published).map((row) => row.id)) });
      }
      return rows.length;
    });
  }
}
