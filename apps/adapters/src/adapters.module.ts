import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdaptersHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule } from '@ioa/database';
import { llmConfig } from '@ioa/llm';
import { HealthModule, MessagingModule } from '@ioa/messaging';
import { A2aEndpointRunner } from './a2a/a2a-endpoint.runner.js';
import { adaptersConfig } from './adapters.config.js';
import { AdaptedAgentEntity } from './agents/adapted-agent.entity.js';
import { AdaptedAgentsController } from './agents/adapted-agents.controller.js';
import { AdaptedAgentsService } from './agents/adapted-agents.service.js';
import { PresenceService } from './agents/presence.service.js';
import { ReachabilityBook } from './agents/reachability.js';
import { HttpEndpointRunner } from './http/http-endpoint.runner.js';
import { WebhookCallbackServer } from './http/webhook-callback.server.js';
import { WebhookTaskEntity } from './http/webhook-task.entity.js';
import { McpEndpointRunner } from './mcp/mcp-endpoint.runner.js';
import { CreateAdaptedAgents1795600000000 } from './migrations/1795600000000-create-adapted-agents.js';
import { CreateAdaptedTasks1795800000000 } from './migrations/1795800000000-create-adapted-tasks.js';
import { OpenAiEndpointRunner } from './openai/openai-endpoint.runner.js';
import { AdaptedTaskRepository } from './ownership/adapted-task.repository.js';
import { TaskLeasesService } from './ownership/task-leases.service.js';
import { AgentTargets } from './secrets/agent-targets.js';
import { AdaptedTasksService } from './tasks/adapted-tasks.service.js';
import { ENDPOINT_RUNNERS } from './tasks/endpoint-runner.js';
import { EndpointRunners } from './tasks/endpoint-runners.js';
import { GroupAnswers } from './tasks/group-answers.js';

/**
 * adapters: the seventh service. It speaks for every agent whose endpoint is not NATS (A2A, MCP, an
 * OpenAI-compatible endpoint, a webhook) exactly as a native agent would — task subject, reports, heartbeats —
 * so the rest of the platform cannot tell the difference. Its tables (schema `adapters`) hold the endpoints and
 * their secrets; cards stay in the registry. Platform traffic is NATS only; its one HTTP listener takes webhook
 * callbacks.
 */
@Module({
  imports: [
    PlatformConfigModule.forService([adaptersConfig, llmConfig]),
    MessagingModule.forService('adapters'),
    DatabaseModule.forService({
      schema: 'adapters',
      entities: [AdaptedAgentEntity, WebhookTaskEntity],
      migrations: [CreateAdaptedAgents1795600000000, CreateAdaptedTasks1795800000000],
    }),
    TypeOrmModule.forFeature([AdaptedAgentEntity, WebhookTaskEntity]),
    HealthModule.forService(AdaptersHealthV1),
  ],
  controllers: [AdaptedAgentsController],
  providers: [
    A2aEndpointRunner,
    McpEndpointRunner,
    OpenAiEndpointRunner,
    HttpEndpointRunner,
    {
      provide: ENDPOINT_RUNNERS,
      inject: [A2aEndpointRunner, McpEndpointRunner, OpenAiEndpointRunner, HttpEndpointRunner],
      useFactory: (...runners: unknown[]) => runners,
    },
    EndpointRunners,
    AgentTargets,
    AdaptedTaskRepository,
    TaskLeasesService,
    ReachabilityBook,
    GroupAnswers,
    WebhookCallbackServer,
    AdaptedTasksService,
    AdaptedAgentsService,
    PresenceService,
  ],
})
export class AdaptersModule {}
