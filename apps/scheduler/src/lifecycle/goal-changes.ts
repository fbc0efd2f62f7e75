import { Injectable } from '@nestjs/common';
import { GoalStatusChangedV1, type GoalStatus, type ModelUsageV1 } from '@ioa/contracts';
import { GoalEventLog } from '../events/goal-event-log.js';
import { ENDED_GOAL_STATUSES, GoalEntity } from '../goals/goal.entity.js';
import { toGoalStatusData, toGoalV1 } from '../goals/goal.mapper.js';
import type { UnitOfWork } from '../persistence/unit-of-work.js';
import { TaskEntity } from '../tasks/task.entity.js';

export interface StatusChange {
  status: GoalStatus;
  /** Replaces the status reason when given (null clears it). */
  statusReason?: string | null;
  conclusion?: string | null;
}

/**
 * Status changes of a goal, inside the transaction that holds the goal locked: the row is saved, the event log gets
 * a `status` entry and `GoalStatusChangedV1` goes to the outbox.
 */
@Injectable()
export class GoalChanges {
  constructor(private readonly log: GoalEventLog) {}

  async setStatus(unit: UnitOfWork, goal: GoalEntity, change: StatusChange): Promise<void> {
    const previousStatus = goal.status;
    const now = new Date();
    goal.status = change.status;
    if (change.statusReason !== undefined) goal.statusReason = change.statusReason;
    if (change.conclusion !== undefined) goal.conclusion = change.conclusion;
    goal.endedAt = ENDED_GOAL_STATUSES.includes(goal.status) ? (goal.endedAt ?? now) : null;
    goal.updatedAt = now;
    await this.write(unit, goal);
    await this.recordStatus(unit, goal, previousStatus);
  }

  /** Records the goal's current status again (its reason changed, a budget was reached…). */
  async recordStatus(unit: UnitOfWork, goal: GoalEntity, previousStatus: GoalStatus | null): Promise<void> {
    await this.log.append(unit, goal, 'status', toGoalStatusData(goal, previousStatus));
    const tasks = await unit.manager.find(TaskEntity, { where: { goalId: goal.id }, order: { createdAt: 'ASC' } });
    await unit.publish(
      GoalStatusChangedV1,
      { goal: toGoalV1(goal, tasks) },
      { messageId: `${goal.id}:status:${goal.lastEventSeq}` },
    );
  }

  /** Adds model usage to the goal's counters (the caller saves the goal). */
  addUsage(goal: GoalEntity, usage: ModelUsageV1 | undefined): void {
    if (!usage) return;
    goal.promptTokens += usage.promptTokens ?? 0;
    goal.completionTokens += usage.completionTokens ?? 0;
    goal.modelCalls += usage.modelCalls ?? 0;
  }

  async save(unit: UnitOfWork, goal: GoalEntity): Promise<void> {
    goal.updatedAt = new Date();
    await this.write(unit, goal);
  }

  /** The whole row, by id (an UPDATE; `save` would read the row first to decide between insert and update). */
  private async write(unit: UnitOfWork, goal: GoalEntity): Promise<void> {
    await unit.manager.update(GoalEntity, { id: goal.id }, { ...goal });
  }
}
