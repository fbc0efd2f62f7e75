import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboxEventEntity } from './outbox-event.entity.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';

/** Events of the registry leave through here: written in the business transaction, published after commit. */
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity])],
  providers: [OutboxRepository, OutboxRelay],
  exports: [OutboxRepository, OutboxRelay],
})
export class OutboxModule {}
