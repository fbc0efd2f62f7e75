import { Module } from '@nestjs/common';
import { DiscoveryHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule } from '@ioa/database';
import { HealthModule, MessagingModule } from '@ioa/messaging';
import { discoveryConfig } from './discovery.config.js';
import { EmbeddingModule } from './embedding/embedding.module.js';
import { AgentIndexEntity, RemovedAgentEntity } from './indexing/agent-index.entity.js';
import { AgentIndexRepository, DISCOVERY_SCHEMA } from './indexing/agent-index.repository.js';
import { AgentIndexService } from './indexing/agent-index.service.js';
import { IndexMaintenanceService } from './indexing/index-maintenance.service.js';
import { RegistryEventsConsumer } from './indexing/registry-events.consumer.js';
import { RegistryConfirmation } from './indexing/registry-confirmation.js';
import { CreateAgentIndex1767225600000 } from './migrations/1767225600000-create-agent-index.js';
import { AgentSearchRepository } from './search/agent-search.repository.js';
import { SearchController } from './search/search.controller.js';
import { SearchService } from './search/search.service.js';

/**
 * Discovery: a projection of the registry (agent cards and their embeddings, in its own schema) fed by registry
 * events, and semantic search over it on `ioa.discovery.agent.search.v1`.
 */
@Module({
  imports: [
    PlatformConfigModule.forService([discoveryConfig]),
    MessagingModule.forService('discovery'),
    DatabaseModule.forService({
      schema: DISCOVERY_SCHEMA,
      entities: [AgentIndexEntity, RemovedAgentEntity],
      migrations: [CreateAgentIndex1767225600000],
      prerequisites: ['CREATE EXTENSION IF NOT EXISTS vector'],
    }),
    HealthModule.forService(DiscoveryHealthV1),
    EmbeddingModule,
  ],
  controllers: [SearchController],
  providers: [
    AgentIndexRepository,
    AgentIndexService,
    RegistryConfirmation,
    RegistryEventsConsumer,
    IndexMaintenanceService,
    AgentSearchRepository,
    SearchService,
  ],
})
export class DiscoveryModule {}
