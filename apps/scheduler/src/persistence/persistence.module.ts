import { Module } from '@nestjs/common';
import { OutboxRelay } from '../outbox/outbox-relay.js';
import { Transactions } from './unit-of-work.js';

/** Transactions with after-commit follow-ups, and the outbox relay that publishes their events. */
@Module({
  providers: [Transactions, OutboxRelay],
  exports: [Transactions, OutboxRelay],
})
export class PersistenceModule {}
