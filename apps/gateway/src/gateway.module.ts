import { Module } from '@nestjs/common';
import { PlatformConfigModule } from '@ioa/config';
import { MessagingModule } from '@ioa/messaging';
import { A2aModule } from './a2a/a2a.module.js';
import { AgentsModule } from './agents/agents.module.js';
import { AuthModule } from './auth/auth.module.js';
import { GatewayDatabaseModule } from './database/gateway-database.js';
import { DeadLettersModule } from './dead-letters/dead-letters.module.js';
import { FeedModule } from './feed/feed.module.js';
import { gatewayConfig } from './gateway.config.js';
import { GoalsModule } from './goals/goals.module.js';
import { GroupsModule } from './groups/groups.module.js';
import { IdentitiesModule } from './identities/identities.module.js';
import { PlatformHealthModule } from './health/platform-health.module.js';
import { McpModule } from './mcp/mcp.module.js';

/**
 * The HTTP face of the platform: every route is a contract request over NATS. One module per resource (`agents/`,
 * `goals/`, `groups/`…), each controller → service → `ContractClient`. The only data it owns is the A2A facade's
 * tasks (`a2a/`, schema `gateway`); the MCP endpoint (`mcp/`) keeps nothing.
 */
@Module({
  imports: [
    PlatformConfigModule.forService([gatewayConfig]),
    MessagingModule.forService('gateway'),
    GatewayDatabaseModule,
    AuthModule,
    AgentsModule,
    IdentitiesModule,
    GoalsModule,
    GroupsModule,
    FeedModule,
    PlatformHealthModule,
    DeadLettersModule,
    A2aModule,
    McpModule,
  ],
})
export class GatewayModule {}
