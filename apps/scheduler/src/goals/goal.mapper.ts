import type { GoalV1 } from '@ioa/contracts';
import type { TaskEntity } from '../tasks/task.entity.js';
import { toTaskV1 } from '../tasks/task.mapper.js';
import type { GoalEntity } from './goal.entity.js';

/** Wall-clock seconds from submission until the goal ended (or until now, while it runs). */
export function elapsedSeconds(goal: GoalEntity, now = new Date()): number {
  const end = goal.endedAt ?? now;
  return Math.max(0, Math.round((end.getTime() - goal.createdAt.getTime()) / 1000));
}

export function totalTokens(goal: Pick<GoalEntity, 'promptTokens' | 'completionTokens'>): number {
  return goal.promptTokens + goal.completionTokens;
}

export function toGoalV1(goal: GoalEntity, tasks: TaskEntity[], now = new Date()): GoalV1 {
  const budget: GoalV1['budget'] = {};
  if (goal.budgetTokens !== null) budget.tokens = goal.budgetTokens;
  if (goal.budgetSeconds !== null) budget.seconds = goal.budgetSeconds;
  return {
    id: goal.id,
    goal: goal.goal,
    status: goal.status,
    team: goal.team,
    groupId: goal.groupId,
    tasks: tasks.map(toTaskV1),
    conclusion: goal.conclusion,
    statusReason: goal.statusReason,
    usage: {
      promptTokens: goal.promptTokens,
      completionTokens: goal.completionTokens,
      modelCalls: goal.modelCalls,
      seconds: elapsedSeconds(goal, now),
    },
    budget,
    maxTurns: goal.maxTurns,
    depth: goal.depth,
    maxDepth: goal.maxDepth,
    parentTaskId: goal.parentTaskId,
    createdAt: goal.createdAt.toISOString(),
    updatedAt: goal.updatedAt.toISOString(),
    endedAt: goal.endedAt?.toISOString() ?? null,
  };
}

/** What a `status` entry of the event log carries: the goal without its tasks (those have their own entries). */
export function toGoalStatusData(goal: GoalEntity, previousStatus: string | null) {
  return {
    id: goal.id,
    status: goal.status,
    previousStatus,
    statusReason: goal.statusReason,
    conclusion: goal.conclusion,
    groupId: goal.groupId,
    team: goal.team,
    usage: {
      promptTokens: goal.promptTokens,
      completionTokens: goal.completionTokens,
      modelCalls: goal.modelCalls,
      seconds: elapsedSeconds(goal),
    },
  };
}
