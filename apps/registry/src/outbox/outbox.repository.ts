import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { OutboxEventEntity } from './outbox-event.entity.js';
import type { OutboxMessage } from './outbox-message.js';

@Injectable()
export class OutboxRepository {
  constructor(@InjectRepository(OutboxEventEntity) private readonly outbox: Repository<OutboxEventEntity>) {}

  /**
   * Writes messages inside the caller's transaction: they exist if and only if the change they report commits.
   * Returns the stored rows, for the caller to publish once committed.
   */
  async enqueue(manager: EntityManager, messages: OutboxMessage[]): Promise<OutboxEventEntity[]> {
    if (messages.length === 0) return [];
    const rows = messages.map((message) =>
      Object.assign(new OutboxEventEntity(), {
        subject: message.contract.subject,
        messageId: message.messageId,
        payload: message.payload,
      }),
    );
    const result = await manager.insert(OutboxEventEntity, rows);
    result.identifiers.forEach((identifier, index) => (rows[index].id = String(identifier.id)));
    return rows;
  }

  /** Rows nobody published: older than `minimumAgeSeconds` (by the database clock), oldest first. */
  orphans(minimumAgeSeconds: number, limit: number): Promise<OutboxEventEntity[]> {
    return this.outbox
      .createQueryBuilder('event')
      .where('event.createdAt < now() - make_interval(secs => :age)', { age: minimumAgeSeconds })
      .orderBy('event.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.outbox.delete({ id: In(ids) });
  }
}
