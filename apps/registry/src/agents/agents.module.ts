import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentEntity } from './agent.entity.js';
import { AgentsController } from './agents.controller.js';
import { AgentActionsController } from './agent-actions.controller.js';
import { AgentIdentitiesModule } from '../identities/agent-identities.module.js';
import { AgentsRepository } from './agents.repository.js';
import { AgentsService } from './agents.service.js';
import { PresenceSweeper } from './presence.sweeper.js';

@Module({
  imports: [TypeOrmModule.forFeature([AgentEntity]), AgentIdentitiesModule],
  controllers: [AgentsController, AgentActionsController],
  providers: [AgentsRepository, AgentsService, PresenceSweeper],
})
export class AgentsModule {}
