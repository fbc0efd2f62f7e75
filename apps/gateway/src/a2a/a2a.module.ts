import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { authConfig } from '../auth/auth.config.js';
import { GoalsModule } from '../goals/goals.module.js';
import { a2aConfig } from './a2a.config.js';
import { A2aFacade } from './a2a-facade.js';
import { A2aTaskStore } from './a2a-task-store.js';
import { GoalAgentExecutor } from './goal-agent-executor.js';

/**
 * The platform as an A2A v1.0 agent (with v0.3 clients served too): the agent card, JSON-RPC and HTTP+JSON. Its
 * routes are the SDK's Express handlers, mounted by `mountA2aFacade`. Tasks are kept in PostgreSQL.
 */
@Module({
  imports: [ConfigModule.forFeature(a2aConfig), ConfigModule.forFeature(authConfig), GoalsModule],
  providers: [A2aTaskStore, GoalAgentExecutor, A2aFacade],
  exports: [A2aFacade],
})
export class A2aModule {}
