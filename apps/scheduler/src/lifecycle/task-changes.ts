import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { OPEN_TASK_STATES, subjectFor, TaskCanceledV1, TaskUpdatedV1 } from '@ioa/contracts';
import type { UnitOfWork } from '@ioa/database';
import { GoalEventLog } from '../events/goal-event-log.js';
import type { GoalEntity } from '../goals/goal.entity.js';
import { cancelForEndedGoal, type TaskTransition } from '../tasks/task-state-machine.js';
import { TaskEntity } from '../tasks/task.entity.js';
import { toTaskV1 } from '../tasks/task.mapper.js';

/**
 * Writes task transitions (see `task-state-machine.ts`) inside the unit of work that holds the task's goal locked:
 * the row is saved, the goal's event log gets a `task` entry and `TaskUpdatedV1` (message id `<taskId>:<version>`)
 * goes to the outbox; when the scheduler itself stopped work the assignee may still be doing, the assignee is told
 * with `TaskCanceledV1`.
 */
@Injectable()
export class TaskChanges {
  constructor(private readonly log: GoalEventLog) {}

  /** Stores a new task (see `assignTask`) and records it. */
  async create(unit: UnitOfWork, goal: GoalEntity, task: TaskEntity): Promise<void> {
    await unit.manager.insert(TaskEntity, task);
    await this.record(unit, goal, task);
  }

  async write(unit: UnitOfWork, goal: GoalEntity, task: TaskEntity, transition: TaskTransition): Promise<TaskEntity> {
    Object.assign(task, transition.task);
    // The whole row, by id (an UPDATE; `save` would read the row first to decide between insert and update).
    await unit.manager.update(TaskEntity, { id: task.id }, { ...task });
    if (!transition.visible) return task;
    await this.record(unit, goal, task);
    if (transition.tellAssignee !== null) {
      const { agentId, reason } = transition.tellAssignee;
      await unit.publish(
        TaskCanceledV1,
        { taskId: task.id, reason },
        { messageId: `${task.id}:canceled:${task.version}`, subject: subjectFor(TaskCanceledV1, agentId) },
      );
    }
    return task;
  }

  openTasksOf(unit: UnitOfWork, goalId: string): Promise<TaskEntity[]> {
    return unit.manager.find(TaskEntity, {
      where: { goalId, state: In([...OPEN_TASK_STATES]) },
      order: { createdAt: 'ASC' },
    });
  }

  /** Stops every open task of the goal (goal ended): `canceled`, and each assignee is told why. */
  async cancelOpenTasks(unit: UnitOfWork, goal: GoalEntity, reason: string): Promise<void> {
    const now = new Date();
    for (const task of await this.openTasksOf(unit, goal.id)) {
      const decision = cancelForEndedGoal(task, reason, now);
      if (decision.outcome === 'transition') await this.write(unit, goal, task, decision);
    }
  }

  private async record(unit: UnitOfWork, goal: GoalEntity, task: TaskEntity): Promise<void> {
    const wire = toTaskV1(task);
    await this.log.append(unit, goal, 'task', wire, `task:${task.id}:${task.version}`);
    await unit.publish(TaskUpdatedV1, { task: wire }, { messageId: `${task.id}:${task.version}` });
  }
}
