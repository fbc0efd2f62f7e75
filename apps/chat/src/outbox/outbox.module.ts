import { Module } from '@nestjs/common';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';

/** Events of the chat leave through here: written in the transition's transaction, published after commit. */
@Module({
  providers: [OutboxRepository, OutboxRelay],
  exports: [OutboxRepository, OutboxRelay],
})
export class OutboxModule {}
