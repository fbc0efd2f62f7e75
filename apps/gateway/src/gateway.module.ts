import { Module } from '@nestjs/common';
import { PlatformConfigModule } from '@ioa/config';
import { MessagingModule } from '@ioa/messaging';
import { A2aModule } from './a2a/a2a.module.js';
import { AgentsModule } from './agents/agents.module.js';
import { DeadLettersModule } from './dead-letters/dead-letters.module.js';
import { gatewayConfig } from './gateway.config.js';
import { GoalsModule } from './goals/goals.module.js';
import { GroupsModule } from './groups/groups.module.js';
import { PlatformHealthModule } from './health/platform-health.module.js';
import { McpModule } from './mcp/mcp.module.js';

/**
 * The HTTP face of the platform. It owns no data and no database: every route is a contract request over NATS.
 * One module per resource (`agents/`, later `goals/` and `groups/`), each controller → service → `ContractClient`.
 */
@Module({
  imports: [
    PlatformConfigModule.forService([gatewayConfig]),
    MessagingModule.forService('gateway'),
    AgentsModule,
    GoalsModule,
    GroupsModule,
    PlatformHealthModule,
    DeadLettersModule,
    A2aModule,
    McpModule,
  ],
})
export class GatewayModule {}
