import { Module } from '@nestjs/common';
import { LlmModule } from '@ioa/llm';
import { AgentsModule } from '../agents/agents.module.js';
import { OwnershipModule } from '../ownership/ownership.module.js';
import { AgentRegistrationService } from '../registration/agent-registration.service.js';
import { TaskDispatchService } from './task-dispatch.service.js';

/** Registration and heartbeats of the hosted agents, and the serving of their task subjects. */
@Module({
  imports: [AgentsModule, LlmModule, OwnershipModule],
  providers: [AgentRegistrationService, TaskDispatchService],
  exports: [AgentRegistrationService, TaskDispatchService],
})
export class TasksModule {}
