import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { In, LessThan } from 'typeorm';
import {
  ContractError,
  GetAgentV1,
  isTerminalTaskState,
  OPEN_TASK_STATES,
  type AgentPresenceChangedV1Event,
  type ReportTaskV1Request,
  type TaskV1,
  type TasksAssignedV1Event,
  type TeamMemberV1,
} from '@ioa/contracts';
import { Transactions } from '@ioa/database';
import { ContractClient } from '@ioa/messaging';
import { GoalEntity } from '../goals/goal.entity.js';
import { lockGoal } from '../goals/goal-lock.js';
import { usageSpent } from '../goals/goal-state-machine.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { TaskChanges } from '../lifecycle/task-changes.js';
import { schedulerConfig } from '../scheduler.config.js';
import { TaskDispatcher } from './task-dispatcher.js';
import { assigneeWentOffline, assignTask, expireDeadline, reportTask } from './task-state-machine.js';
import { TaskEntity } from './task.entity.js';
import { toTaskV1 } from './task.mapper.js';

/** The task use cases: storing assigned tasks, reports, deadlines, and owners going offline. */
@Injectable()
export class TasksService {
  private readonly logger = new Logger(TasksService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly tasks: TaskChanges,
    private readonly lifecycle: GoalLifecycle,
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
      const goal = await lockGoal(unit, event.goalId);
      if (!goal) return this.logger.warn(`Tasks assigned for unknown goal ${event.goalId}; ignored`);
      // Chat only assigns tasks in the goal's own group: an event naming another group contradicts the goal (forged
      // or misrouted) and is refused. A goal whose group is not recorded yet (formation still committing) is let in.
      if (goal.groupId !== null && goal.groupId !== event.groupId) {
        return this.logger.warn(
          `Refused tasks assigned in group ${event.groupId} for goal ${goal.id}: the goal's group is ${goal.groupId}`,
        );
      }
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
        const assignment = {
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
          messageId: event.messageId,
        };
        const creation = assignTask(assignment, goal.status, this.config.taskDeadlineSeconds, createdAt);
        const task = unit.manager.create(TaskEntity, creation.task);
        await this.tasks.create(unit, goal, task);
        if (creation.refusal) await this.tasks.write(unit, goal, task, creation.refusal);
        else stored += 1;
      }
      if (stored > 0) unit.afterCommit(() => this.dispatcher.kick());
    });
  }

  async get(taskId: string): Promise<TaskV1> {
    const task = await this.transactions.manager.findOneBy(TaskEntity, { id: taskId });
    if (!task) throw ContractError.notFound('Task', taskId);
    return toTaskV1(task);
  }

  /** An assignee reports progress or the outcome (see `reportTask` for the rules). */
  async report(request: ReportTaskV1Request): Promise<TaskV1> {
    const probe = await this.transactions.manager.findOneBy(TaskEntity, { id: request.taskId });
    if (!probe) throw ContractError.notFound('Task', request.taskId);
    return this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, probe.goalId);
      const task = await unit.manager.findOneBy(TaskEntity, { id: request.taskId });
      if (!goal || !task) throw ContractError.notFound('Task', request.taskId);
      const now = new Date();
      const decision = reportTask(task, request, now);
      if (decision.outcome === 'rejected') {
        throw new ContractError(decision.code, decision.reason, {
          rule: decision.rule,
          taskId: task.id,
          state: task.state,
        });
      }
      if (decision.outcome === 'unchanged') return toTaskV1(task);
      await this.tasks.write(unit, goal, task, decision);
      await this.lifecycle.apply(unit, goal, usageSpent(goal, request.usage, now));
      if (task.childGoalId !== null && isTerminalTaskState(task.state)) {
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
        const goal = await lockGoal(unit, goalId);
        const task = await unit.manager.findOneBy(TaskEntity, { id });
        if (!goal || !task) return;
        const decision = expireDeadline(task, new Date());
        if (decision.outcome !== 'transition') return;
        this.logger.log(`Task ${task.id} of ${task.assigneeName} passed its deadline`);
        await this.tasks.write(unit, goal, task, decision);
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
        const goal = await lockGoal(unit, goalId);
        if (!goal) return;
        const tasks = await unit.manager.find(TaskEntity, {
          where: { goalId, assigneeId: event.agentId, state: In([...OPEN_TASK_STATES]) },
        });
        const now = new Date();
        for (const task of tasks) {
          const decision = assigneeWentOffline(task, replacement, this.config.taskDeadlineSeconds, now);
          if (decision.outcome === 'transition') await this.tasks.write(unit, goal, task, decision);
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
