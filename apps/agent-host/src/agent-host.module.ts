import { Module } from '@nestjs/common';
import { AgentHostHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule } from '@ioa/database';
import { HealthModule, MessagingModule } from '@ioa/messaging';
import { agentHostConfig } from './agent-host.config.js';
import { AgentsModule } from './agents/agents.module.js';
import { DocumentChunkEntity } from './agents/doc-researcher/document-chunk.entity.js';
import { DocumentEntity } from './agents/doc-researcher/document.entity.js';
import { CommunicatorModule } from './communicator/communicator.module.js';
import { CreateDocuments1795500000000 } from './migrations/1795500000000-create-documents.js';
import { CreateOwnedWork1795600000000 } from './migrations/1795600000000-create-owned-work.js';
import { OwnedWorkEntity } from './ownership/owned-work.entity.js';
import { TasksModule } from './tasks/tasks.module.js';

/**
 * agent-host: hosts the built-in agents (code-runner, doc-researcher, writer) — registered and heartbeating like
 * any agent, serving their task subjects — and runs the platform communicator that speaks in group chats for
 * agents that do not speak for themselves. Its tables (schema `agent_host`): the researcher's documents, and the
 * tasks and turns it has accepted and not finished (`owned_work`), so a crash loses none of them.
 */
@Module({
  imports: [
    PlatformConfigModule.forService([agentHostConfig]),
    MessagingModule.forService('agent-host'),
    DatabaseModule.forService({
      schema: 'agent_host',
      entities: [DocumentEntity, DocumentChunkEntity, OwnedWorkEntity],
      migrations: [CreateDocuments1795500000000, CreateOwnedWork1795600000000],
      prerequisites: ['CREATE EXTENSION IF NOT EXISTS vector'],
    }),
    HealthModule.forService(AgentHostHealthV1),
    AgentsModule,
    TasksModule,
    CommunicatorModule,
  ],
})
export class AgentHostModule {}
