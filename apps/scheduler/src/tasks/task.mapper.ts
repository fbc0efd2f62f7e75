import type { TaskV1 } from '@ioa/contracts';
import type { TaskEntity } from './task.entity.js';

export function toTaskV1(task: TaskEntity): TaskV1 {
  return {
    id: task.id,
    goalId: task.goalId,
    groupId: task.groupId,
    parentTaskId: task.parentTaskId,
    assignerId: task.assignerId,
    assigneeId: task.assigneeId,
    assigneeName: task.assigneeName,
    mode: task.mode,
    description: task.description,
    brief: task.brief,
    state: task.state,
    result: task.result,
    statusMessage: task.statusMessage,
    deadline: task.deadline.toISOString(),
    attempts: task.attempts,
    childGoalId: task.childGoalId,
    createdAt: task.createdAt.toISOString(),
    updatedAt: task.updatedAt.toISOString(),
    startedAt: task.startedAt?.toISOString() ?? null,
    completedAt: task.completedAt?.toISOString() ?? null,
  };
}
