import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { RegistryHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule, OutboxEventEntity, OutboxModule } from '@ioa/database';
import { HealthModule, MessagingModule } from '@ioa/messaging';
import { AgentEntity } from './agents/agent.entity.js';
import { AgentsModule } from './agents/agents.module.js';
import { AgentIdentityEntity, RevokedAgentKeyEntity } from './identities/agent-identity.entity.js';
import { AgentIdentitiesModule } from './identities/agent-identities.module.js';
import { CreateAgents1795312387773 } from './migrations/1795312387773-create-agents.js';
import { CreateOutbox1795312387774 } from './migrations/1795312387774-create-outbox.js';
import { CreateAgentIdentities1795950000000 } from './migrations/1795950000000-create-agent-identities.js';
import { registryConfig } from './registry.config.js';

/** The agent registry: agent cards, their owners and their presence, in the `registry` schema. */
@Module({
  imports: [
    PlatformConfigModule.forService([registryConfig]),
    MessagingModule.forService('registry'),
    DatabaseModule.forService({
      schema: 'registry',
      entities: [AgentEntity, OutboxEventEntity, AgentIdentityEntity, RevokedAgentKeyEntity],
      migrations: [CreateAgents1795312387773, CreateOutbox1795312387774, CreateAgentIdentities1795950000000],
    }),
    // Each change publishes its own events right after commit; the timer only retries what a failure left behind.
    OutboxModule.forService({ retryMs: 2000 }),
    HealthModule.forService(RegistryHealthV1),
    ScheduleModule.forRoot(),
    AgentsModule,
    AgentIdentitiesModule,
  ],
})
export class RegistryModule {}
