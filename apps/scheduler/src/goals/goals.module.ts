import { Module } from '@nestjs/common';
import { LifecycleModule } from '../lifecycle/lifecycle.module.js';
import { PlanningModule } from '../planning/planner.js';
import { GoalsController } from './goals.controller.js';
import { GoalsService } from './goals.service.js';
import { GroupEventsService } from './group-events.service.js';
import { TeamFormation } from './team-formation.service.js';

@Module({
  imports: [LifecycleModule, PlanningModule],
  controllers: [GoalsController],
  providers: [GoalsService, TeamFormation, GroupEventsService],
  exports: [TeamFormation, GroupEventsService],
})
export class GoalsModule {}
