import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { OutboxEventEntity } from './outbox-event.entity.js';
import type { OutboxMessage } from './outbox-message.js';

@Injectable()
export class OutboxRepository {
  constructor(@InjectRepository(OutboxEventEntity) private readonly outbox: Repository<OutboxEventEntity>) {}

  /** Writes messages inside the caller's transaction: they exist if and only if the change they report commits. */
  async enqueue(manager: EntityManager, messages: OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await manager.insert(
      OutboxEventEntity,
      messages.map((message) => ({
        subject: message.contract.subject,
        messageId: message.messageId,
        payload: message.payload as object,
      })),
    );
  }

  oldest(limit: number): Promise<OutboxEventEntity[]> {
    return this.outbox.find({ order: { id: 'ASC' }, take: limit });
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.outbox.delete({ id: In(ids) });
  }
}
