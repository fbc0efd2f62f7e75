import { Module } from '@nestjs/common';
import { LlmModule } from '@ioa/llm';
import { OwnershipModule } from '../ownership/ownership.module.js';
import { AgentCardCache } from './agent-card.cache.js';
import { PlatformCommunicatorService } from './platform-communicator.service.js';

@Module({
  imports: [LlmModule, OwnershipModule],
  providers: [AgentCardCache, PlatformCommunicatorService],
  exports: [PlatformCommunicatorService],
})
export class CommunicatorModule {}
