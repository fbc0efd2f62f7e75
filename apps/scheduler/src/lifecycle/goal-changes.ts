import { Injectable } from '@nestjs/common';
import { GoalStatusChangedV1, type GoalStatus } from '@ioa/contracts';
import type { UnitOfWork } from '@ioa/database';
import { GoalEventLog } from '../events/goal-event-log.js';
import { GoalEntity } from '../goals/goal.entity.js';
import { toGoalStatusData, toGoalV1 } from '../goals/goal.mapper.js';
import type { GoalCreation, GoalTransition } from '../goals/goal-state-machine.js';
import { TaskEntity } from '../tasks/task.entity.js';
import { TaskChanges } from './task-changes.js';

/**
 * Writes a goal transition inside the unit of work that holds the goal locked (the "write" of decide → write →
 * publish): the open tasks of an ended goal are canceled, each status entry goes into the event log with its
 * `GoalStatusChangedV1` in the outbox, and the row is saved. What follows after commit is `GoalLifecycle.apply`'s.
 */
@Injectable()
export class GoalChanges {
  constructor(
    private readonly log: GoalEventLog,
    private readonly tasks: TaskChanges,
  ) {}

  /** Stores a new goal (`goal`: the creation's fields, with those the caller adds) and records its first status. */
  async create(unit: UnitOfWork, goal: GoalEntity, creation: GoalCreation): Promise<void> {
    await unit.manager.insert(GoalEntity, goal);
    for (const record of creation.records) await this.recordStatus(unit, goal, record.previousStatus);
  }

  async write(unit: UnitOfWork, goal: GoalEntity, transition: GoalTransition): Promise<void> {
    if (transition.cancelOpenTasks !== null) await this.tasks.cancelOpenTasks(unit, goal, transition.cancelOpenTasks);
    for (const record of transition.records) {
      Object.assign(goal, record.goal);
      await this.recordStatus(unit, goal, record.previousStatus);
    }
    Object.assign(goal, transition.goal);
    // The whole row, by id (an UPDATE; `save` would read the row first to decide between insert and update).
    await unit.manager.update(GoalEntity, { id: goal.id }, { ...goal });
  }

  /** Records the goal's current status (a status change, or a new reason for the same status). */
  async recordStatus(unit: UnitOfWork, goal: GoalEntity, previousStatus: GoalStatus | null): Promise<void> {
    await this.log.append(unit, goal, 'status', toGoalStatusData(goal, previousStatus));
    const tasks = await unit.manager.find(TaskEntity, { where: { goalId: goal.id }, order: { createdAt: 'ASC' } });
    await unit.publish(
      GoalStatusChangedV1,
      { goal: toGoalV1(goal, tasks) },
      { messageId: `${goal.id}:status:${goal.lastEventSeq}` },
    );
  }
}
