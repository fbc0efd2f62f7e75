import { Module } from '@nestjs/common';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { PlanningModule } from '../planning/planner.js';
import { TaskBriefs } from './task-briefs.js';
import { TaskDispatcher } from './task-dispatcher.js';
import { TasksController } from './tasks.controller.js';
import { AgentTasksController } from './agent-tasks.controller.js';
import { TasksService } from './tasks.service.js';

@Module({
  imports: [LifecycleModule, PlanningModule],
  controllers: [TasksController, AgentTasksController],
  providers: [TasksService, TaskDispatcher, TaskBriefs],
  exports: [TasksService, TaskDispatcher],
})
export class TasksModule {}
