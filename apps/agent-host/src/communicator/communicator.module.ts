import { Module } from '@nestjs/common';
import { LlmModule } from '@ioa/llm';
import { AgentCardCache } from './agent-card.cache.js';
import { PlatformCommunicatorService } from './platform-communicator.service.js';

@Module({
  imports: [LlmModule],
  providers: [AgentCardCache, PlatformCommunicatorService],
  exports: [PlatformCommunicatorService],
})
export class CommunicatorModule {}
