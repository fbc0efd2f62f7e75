import { Module } from '@nestjs/common';
import { OwnedWorkRepository } from './owned-work.repository.js';
import { WorkLeaseService } from './work-lease.service.js';

/** Durable ownership of accepted tasks and turns (table `agent_host.owned_work`), shared by replicas. */
@Module({
  providers: [OwnedWorkRepository, WorkLeaseService],
  exports: [WorkLeaseService],
})
export class OwnershipModule {}
