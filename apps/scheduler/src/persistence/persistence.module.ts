import { Module } from '@nestjs/common';
import { Transactions } from './unit-of-work.js';

/** Transactions with after-commit follow-ups; their events go through the service's outbox (`OutboxModule`). */
@Module({
  providers: [Transactions],
  exports: [Transactions],
})
export class PersistenceModule {}
