import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { goalEventsConfig } from './goal-events.config.js';
import { GoalEventStreams } from './goal-event-streams.js';
import { GoalEventTail } from './goal-event-tail.js';
import { GoalListController } from './goal-list.controller.js';
import { GoalsController } from './goals.controller.js';
import { GoalsService } from './goals.service.js';

/**
 * `/v1/goals`: submit, read, talk to and cancel goals, and stream their event logs (SSE). Needs the global
 * `ContractClient` and NATS connection (from `MessagingModule`).
 */
@Module({
  imports: [ConfigModule.forFeature(goalEventsConfig)],
  controllers: [GoalsController, GoalListController],
  providers: [GoalsService, GoalEventTail, GoalEventStreams],
  // The A2A facade and the MCP endpoint submit goals and follow their events as this route does.
  exports: [GoalsService, GoalEventStreams],
})
export class GoalsModule {}
