import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { SchedulerHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule, OutboxEventEntity, OutboxModule } from '@ioa/database';
import { HealthModule, MessagingModule } from '@ioa/messaging';
import { EventConsumers } from './consumers/event-consumers.js';
import { GoalEventEntity } from './events/goal-event.entity.js';
import { GroupFeedEntity } from './events/group-feed.entity.js';
import { GoalEntity } from './goals/goal.entity.js';
import { GoalsModule } from './goals/goals.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { CreateSchedulerTables1795312543981 } from './migrations/1795312543981-create-scheduler-tables.js';
import { AddGoalWaitingForUser1795312543982 } from './migrations/1795312543982-add-goal-waiting-for-user.js';
import { DropOutboxStream1795312543983 } from './migrations/1795312543983-drop-outbox-stream.js';
import { AddGoalIdempotencyKey1795312543984 } from './migrations/1795312543984-add-goal-idempotency-key.js';
import { AddGoalAccount1795312700000 } from './migrations/1795312700000-add-goal-account.js';
import { AddGroupFeeds1795312600000 } from './migrations/1795312600000-add-group-feeds.js';
import { AddGoalListIndexes1795312800000 } from './migrations/1795312800000-add-goal-list-indexes.js';
import { schedulerConfig, type SchedulerConfig } from './scheduler.config.js';
import { SchedulerSweeper } from './sweeper/scheduler-sweeper.js';
import { TaskEntity } from './tasks/task.entity.js';
import { TasksModule } from './tasks/tasks.module.js';

/**
 * The scheduler: goals and their teams, tasks and their delivery, budgets, nested sub-teams, and each goal's
 * ordered event log (schema `scheduler`).
 */
@Module({
  imports: [
    PlatformConfigModule.forService([schedulerConfig]),
    MessagingModule.forService('scheduler'),
    DatabaseModule.forService({
      schema: 'scheduler',
      entities: [GoalEntity, TaskEntity, GoalEventEntity, GroupFeedEntity, OutboxEventEntity],
      migrations: [
        CreateSchedulerTables1795312543981,
        AddGoalWaitingForUser1795312543982,
        DropOutboxStream1795312543983,
        AddGoalIdempotencyKey1795312543984,
        AddGroupFeeds1795312600000,
        AddGoalAccount1795312700000,
        AddGoalListIndexes1795312800000,
      ],
    }),
    // Events are flushed after each commit; what a failure left behind is retried at the sweep interval.
    OutboxModule.forServiceAsync({
      inject: [schedulerConfig.KEY],
      useFactory: (config: SchedulerConfig) => ({ retryMs: config.sweepIntervalMs }),
    }),
    HealthModule.forService(SchedulerHealthV1),
    ScheduleModule.forRoot(),
    LifecycleModule,
    GoalsModule,
    TasksModule,
  ],
  providers: [EventConsumers, SchedulerSweeper],
})
export class SchedulerModule {}
