import { Module, type OnModuleDestroy } from '@nestjs/common';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { principalOfAuthInfo } from './mcp-caller.js';
import { GoalsModule } from '../goals/goals.module.js';
import { GoalToolsService } from './goal-tools.service.js';
import { createIoaMcpServer } from './ioa-mcp-server.js';

/** The MCP endpoint's handler: stateless, a fresh server per request (no sessions to lose across replicas). */
export class McpEndpoint implements OnModuleDestroy {
  readonly handler: McpHttpHandler;

  constructor(tools: GoalToolsService) {
    // 2025-era clients (initialize handshake) are served statelessly too, from the same tools.
    // Each request's server acts as its caller (authenticated by `requireCredentials`, passed as `authInfo`).
    this.handler = createMcpHandler((context) => createIoaMcpServer(tools.forCaller(principalOfAuthInfo(context))), {
      legacy: 'stateless',
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.handler.close();
  }
}

/** The platform as an MCP server at `/mcp` (Streamable HTTP), mounted by `mountMcpEndpoint`. */
@Module({
  imports: [GoalsModule],
  providers: [
    GoalToolsService,
    {
      provide: McpEndpoint,
      useFactory: (tools: GoalToolsService) => new McpEndpoint(tools),
      inject: [GoalToolsService],
    },
  ],
  exports: [McpEndpoint],
})
export class McpModule {}
