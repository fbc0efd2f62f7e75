import { Module } from '@nestjs/common';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { PlanningModule } from '../planning/planner.js';
import { GoalListController } from './goal-list.controller.js';
import { GoalListService } from './goal-list.service.js';
import { GoalsController } from './goals.controller.js';
import { GoalsService } from './goals.service.js';
import { GroupEventsService } from './group-events.service.js';
import { TeamFormation } from './team-formation.service.js';

@Module({
  imports: [LifecycleModule, PlanningModule],
  controllers: [GoalsController, GoalListController],
  providers: [GoalsService, GoalListService, TeamFormation, GroupEventsService],
  exports: [TeamFormation, GroupEventsService],
})
export class GoalsModule {}
