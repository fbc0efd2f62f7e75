import { Module } from '@nestjs/common';
import { GoalEventLog } from '../events/goal-event-log.js';
import { Budgets } from './budgets.js';
import { GoalChanges } from './goal-changes.js';
import { GoalLifecycle } from './goal-lifecycle.js';
import { TaskChanges } from './task-changes.js';

/** How goals and tasks change, shared by every use case: event log, status and task changes, budgets, endings. */
@Module({
  providers: [GoalEventLog, TaskChanges, GoalChanges, Budgets, GoalLifecycle],
  exports: [GoalEventLog, TaskChanges, GoalChanges, Budgets, GoalLifecycle],
})
export class LifecycleModule {}
