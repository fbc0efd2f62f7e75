import { Module } from '@nestjs/common';
import { AgentsController } from './agents.controller.js';
import { AgentsService } from './agents.service.js';

/** `/v1/agents`. Needs only the global `ContractClient` (from `MessagingModule`). */
@Module({
  controllers: [AgentsController],
  providers: [AgentsService],
})
export class AgentsModule {}
