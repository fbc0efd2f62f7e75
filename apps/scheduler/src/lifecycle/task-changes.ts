import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { subjectFor, TaskCanceledV1, TaskUpdatedV1, TERMINAL_TASK_STATES } from '@ioa/contracts';
import { GoalEventLog } from '../events/goal-event-log.js';
import type { GoalEntity } from '../goals/goal.entity.js';
import type { UnitOfWork } from '../persistence/unit-of-work.js';
import { OPEN_TASK_STATES, TaskEntity } from '../tasks/task.entity.js';
import { toTaskV1 } from '../tasks/task.mapper.js';

/** Fields of a task that a change may set; `version`, `updatedAt` and the timestamps follow from them. */
export type TaskPatch = Partial<
  Pick<
    TaskEntity,
    | 'state'
    | 'result'
    | 'statusMessage'
    | 'brief'
    | 'attempts'
    | 'nextDispatchAt'
    | 'assigneeId'
    | 'assigneeName'
    | 'deadline'
    | 'childGoalId'
    | 'startedAt'
  >
>;

export function isOpenTask(task: Pick<TaskEntity, 'state'>): boolean {
  return OPEN_TASK_STATES.includes(task.state);
}

/**
 * Every change of a task goes through here, inside the transaction that holds its goal locked: the version goes up,
 * the goal's event log gets a `task` entry and `TaskUpdatedV1` (message id `<taskId>:<version>`) goes to the
 * outbox. When the scheduler itself stops a task its assignee may still be working on, the assignee is told with
 * `TaskCanceledV1`.
 */
@Injectable()
export class TaskChanges {
  constructor(private readonly log: GoalEventLog) {}

  async create(unit: UnitOfWork, goal: GoalEntity, task: TaskEntity): Promise<void> {
    task.version = 1;
    await unit.manager.insert(TaskEntity, task);
    await this.record(unit, goal, task);
  }

  async change(
    unit: UnitOfWork,
    goal: GoalEntity,
    task: TaskEntity,
    patch: TaskPatch,
    options: { tellAssignee?: string } = {},
  ): Promise<TaskEntity> {
    const now = new Date();
    const previousAssignee = task.assigneeId;
    Object.assign(task, patch);
    if (task.state === 'working' && task.startedAt === null) task.startedAt = now;
    if (TERMINAL_TASK_STATES.includes(task.state)) {
      task.completedAt ??= now;
      task.nextDispatchAt = null;
    }
    task.version += 1;
    // Strictly increasing, even for two changes within one millisecond: consumers drop updates older than theirs.
    task.updatedAt = new Date(Math.max(now.getTime(), task.updatedAt.getTime() + 1));
    // The whole row, by id (an UPDATE; `save` would read the row first to decide between insert and update).
    await unit.manager.update(TaskEntity, { id: task.id }, { ...task });
    await this.record(unit, goal, task);
    if (options.tellAssignee !== undefined) {
      await unit.publish(
        TaskCanceledV1,
        { taskId: task.id, reason: options.tellAssignee },
        { messageId: `${task.id}:canceled:${task.version}`, subject: subjectFor(TaskCanceledV1, previousAssignee) },
      );
    }
    return task;
  }

  /** A change of bookkeeping fields that are not part of `TaskV1` (no version, no event). */
  async touch(unit: UnitOfWork, task: TaskEntity, patch: Pick<TaskPatch, 'nextDispatchAt'>): Promise<void> {
    Object.assign(task, patch);
    await unit.manager.update(TaskEntity, { id: task.id }, patch);
  }

  openTasksOf(unit: UnitOfWork, goalId: string): Promise<TaskEntity[]> {
    return unit.manager.find(TaskEntity, {
      where: { goalId, state: In([...OPEN_TASK_STATES]) },
      order: { createdAt: 'ASC' },
    });
  }

  /** Stops every open task of the goal (goal ended): `canceled`, and each assignee is told why. */
  async cancelOpenTasks(unit: UnitOfWork, goal: GoalEntity, reason: string): Promise<TaskEntity[]> {
    const tasks = await this.openTasksOf(unit, goal.id);
    for (const task of tasks) {
      await this.change(unit, goal, task, { state: 'canceled', statusMessage: reason }, { tellAssignee: reason });
    }
    return tasks;
  }

  private async record(unit: UnitOfWork, goal: GoalEntity, task: TaskEntity): Promise<void> {
    const wire = toTaskV1(task);
    await this.log.append(unit, goal, 'task', wire, `task:${task.id}:${task.version}`);
    await unit.publish(TaskUpdatedV1, { task: wire }, { messageId: `${task.id}:${task.version}` });
  }
}
