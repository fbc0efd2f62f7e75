import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { In, LessThan } from 'typeorm';
import {
  ContractError,
  GetAgentV1,
  TERMINAL_TASK_STATES,
  type AgentPresenceChangedV1Event,
  type ReportTaskV1Request,
  type TaskV1,
  type TasksAssignedV1Event,
  type TeamMemberV1,
} from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { ENDED_GOAL_STATUSES, GoalEntity } from '../goals/goal.entity.js';
import { Budgets } from '../lifecycle/budgets.js';
import { GoalChanges } from '../lifecycle/goal-changes.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { TaskChanges } from '../lifecycle/task-changes.js';
import { Transactions } from '../persistence/unit-of-work.js';
import { schedulerConfig } from '../scheduler.config.js';
import { decideReport } from './task-report.rules.js';
import { TaskDispatcher } from './task-dispatcher.js';
import { OPEN_TASK_STATES, TaskEntity } from './task.entity.js';
import { toTaskV1 } from './task.mapper.js';

/** The task use cases: storing assigned tasks, reports, deadlines, and owners going offline. */
@Injectable()
export class TasksService {
  private readonly logger = new Logger(TasksService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly tasks: TaskChanges,
    private readonly goals: GoalChanges,
    private readonly lifecycle: GoalLifecycle,
    private readonly budgets: Budgets,
    private readonly dispatcher: TaskDispatcher,
    private readonly client: ContractClient,
    @Inject(schedulerConfig.KEY) private readonly config: ConfigType<typeof schedulerConfig>,
  ) {}

  /**
   * A move assigned tasks: they are stored (`submitted`, idempotent by the ids chat minted) and delivered in the
   * background — this runs inside the chat event consumer, which must not wait on agents.
   */
  async onTasksAssigned(event: TasksAssignedV1Event): Promise<void> {
    await this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(event.goalId);
      if (!goal) return this.logger.warn(`Tasks assigned for unknown goal ${event.goalId}; ignored`);
      const known = await unit.manager.find(TaskEntity, {
        where: { id: In(event.tasks.map((task) => task.taskId)) },
        select: { id: true },
      });
      const knownIds = new Set(known.map((task) => task.id));
      const now = new Date();
      let stored = 0;
      for (const [index, assigned] of event.tasks.entries()) {
        if (knownIds.has(assigned.taskId)) continue;
        const draft = event.drafts[index];
        // Tasks are listed by creation time: one millisecond apart keeps the order the move gave them.
        const createdAt = new Date(now.getTime() + index);
        const task = unit.manager.create(TaskEntity, {
          id: assigned.taskId,
          goalId: goal.id,
          groupId: event.groupId,
          parentTaskId: goal.parentTaskId,
          assignerId: event.assignerId,
          assigneeId: assigned.assigneeId,
          assigneeName: assigned.assigneeName,
          mode: event.mode,
          description: draft?.description ?? assigned.abstract,
          abstract: assigned.abstract || draft?.abstract || 'Task',
          brief: null,
          state: 'submitted',
          result: null,
          statusMessage: null,
          deadline: new Date(now.getTime() + this.config.taskDeadlineSeconds * 1000),
          attempts: 0,
          nextDispatchAt: now,
          childGoalId: null,
          messageId: event.messageId,
          createdAt,
          updatedAt: createdAt,
          startedAt: null,
          completedAt: null,
        });
        await this.tasks.create(unit, goal, task);
        if (ENDED_GOAL_STATUSES.includes(goal.status)) {
          // The group still talked after its goal ended (its close is pending): the task never runs.
          await this.tasks.change(unit, goal, task, {
            state: 'canceled',
            statusMessage: `The goal has ${goal.status}`,
          });
        } else {
          stored += 1;
        }
      }
      if (stored > 0) unit.afterCommit(() => this.dispatcher.kick());
    });
  }

  async get(taskId: string): Promise<TaskV1> {
    const task = await this.transactions.manager.findOneBy(TaskEntity, { id: taskId });
    if (!task) throw ContractError.notFound('Task', taskId);
    return toTaskV1(task);
  }

  /** An assignee reports progress or the outcome (see `decideReport` for the rules). */
  async report(request: ReportTaskV1Request): Promise<TaskV1> {
    const probe = await this.transactions.manager.findOneBy(TaskEntity, { id: request.taskId });
    if (!probe) throw ContractError.notFound('Task', request.taskId);
    return this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(probe.goalId);
      const task = await unit.manager.findOneBy(TaskEntity, { id: request.taskId });
      if (!goal || !task) throw ContractError.notFound('Task', request.taskId);
      if (task.assigneeId !== request.agentId) {
        throw new ContractError(
          'FORBIDDEN',
          `Task ${task.id} is assigned to ${task.assigneeName}; only its assignee reports on it`,
          {
            taskId: task.id,
          },
        );
      }
      const decision = decideReport(task, request);
      if (decision.kind === 'unchanged') return toTaskV1(task);
      // Any report means the task reached its assignee: no further delivery.
      await this.tasks.change(unit, goal, task, { ...decision.patch, nextDispatchAt: null });
      if (request.usage) {
        this.goals.addUsage(goal, request.usage);
        await this.goals.save(unit, goal);
      }
      await this.budgets.check(unit, goal);
      if (task.childGoalId !== null && TERMINAL_TASK_STATES.includes(task.state)) {
        unit.afterCommit(() => this.lifecycle.cancelAbandonedSubGoals(goal.id));
      }
      return toTaskV1(task);
    });
  }

  /** The sweeper's part: open tasks past their deadline fail, and their assignees are told to stop. */
  async expireDeadlines(): Promise<void> {
    const due = await this.transactions.manager.find(TaskEntity, {
      where: { state: In([...OPEN_TASK_STATES]), deadline: LessThan(new Date()) },
      select: { id: true, goalId: true },
      take: 100,
    });
    const goals = new Set<string>();
    for (const { id, goalId } of due) {
      await this.transactions.run(async (unit) => {
        const goal = await unit.lockGoal(goalId);
        const task = await unit.manager.findOneBy(TaskEntity, { id });
        if (!goal || !task || !OPEN_TASK_STATES.includes(task.state) || task.deadline > new Date()) return;
        const seconds = Math.round((task.deadline.getTime() - task.createdAt.getTime()) / 1000);
        this.logger.log(`Task ${task.id} of ${task.assigneeName} passed its deadline`);
        await this.tasks.change(
          unit,
          goal,
          task,
          { state: 'failed', statusMessage: `No result within the deadline of ${seconds} s` },
          { tellAssignee: `The task passed its deadline of ${seconds} s` },
        );
        goals.add(goalId);
      });
    }
    for (const goalId of goals) await this.lifecycle.cancelAbandonedSubGoals(goalId);
  }

  /**
   * An agent went offline: its open tasks fail — or, with `SCHEDULER_REASSIGN_ON_OFFLINE=true`, move to another
   * online member of the same team when there is one. The group learns it from `TaskUpdatedV1`.
   */
  async onAgentOffline(event: AgentPresenceChangedV1Event): Promise<void> {
    const open = await this.transactions.manager.find(TaskEntity, {
      where: { assigneeId: event.agentId, state: In([...OPEN_TASK_STATES]) },
      select: { id: true, goalId: true },
    });
    const goalIds = [...new Set(open.map((task) => task.goalId))];
    for (const goalId of goalIds) {
      const replacement = this.config.reassignOnOffline ? await this.onlineTeammate(goalId, event.agentId) : null;
      await this.transactions.run(async (unit) => {
        const goal = await unit.lockGoal(goalId);
        if (!goal) return;
        const tasks = await unit.manager.find(TaskEntity, {
          where: { goalId, assigneeId: event.agentId, state: In([...OPEN_TASK_STATES]) },
        });
        for (const task of tasks) {
          if (replacement) {
            await this.tasks.change(
              unit,
              goal,
              task,
              {
                assigneeId: replacement.agentId,
                assigneeName: replacement.name,
                state: 'submitted',
                attempts: 0,
                startedAt: null,
                deadline: new Date(Date.now() + this.config.taskDeadlineSeconds * 1000),
                nextDispatchAt: new Date(),
                statusMessage: `${task.assigneeName} went offline; re-assigned to ${replacement.name}`,
              },
              { tellAssignee: 'You went offline; the task was re-assigned' },
            );
          } else {
            await this.tasks.change(
              unit,
              goal,
              task,
              { state: 'failed', statusMessage: `${task.assigneeName} went offline before finishing the task` },
              { tellAssignee: 'You went offline; the task was failed' },
            );
          }
        }
        unit.afterCommit(() => (replacement ? this.dispatcher.kick() : this.lifecycle.cancelAbandonedSubGoals(goalId)));
      });
    }
  }

  /** The first other member of the goal's team that the registry says is online (team order: the leader first). */
  private async onlineTeammate(goalId: string, offlineAgentId: string): Promise<TeamMemberV1 | null> {
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: goalId });
    for (const member of goal?.team ?? []) {
      if (member.agentId === offlineAgentId) continue;
      try {
        const card = await this.client.request(GetAgentV1, { id: member.agentId });
        if (card.status === 'online') return member;
      } catch {
        // unknown or registry unavailable: not a replacement we can vouch for
      }
    }
    return null;
  }
}
