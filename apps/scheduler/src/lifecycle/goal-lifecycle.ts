import { Injectable, Logger } from '@nestjs/common';
import { In, IsNull, Not } from 'typeorm';
import { CloseGroupV1, ContractError } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { ENDED_GOAL_STATUSES, GoalEntity } from '../goals/goal.entity.js';
import { Transactions, type UnitOfWork } from '../persistence/unit-of-work.js';
import { TaskEntity } from '../tasks/task.entity.js';
import { Budgets } from './budgets.js';
import { GoalChanges } from './goal-changes.js';
import { isOpenTask, TaskChanges } from './task-changes.js';

export type GoalOutcome =
  | { status: 'completed'; conclusion: string }
  | { status: 'failed' | 'canceled'; reason: string; groupAlreadyEnded?: boolean };

/** Task states after which a sub-goal working for the task has no reason to go on. */
const ABANDONED_TASK_STATES = ['failed', 'canceled', 'rejected'] as const;

/**
 * How goals end, and what follows from it — so that nothing runs on and nothing waits forever:
 * - the goal's open tasks are canceled (their assignees are told);
 * - a failed or canceled goal's group is closed (retried by the sweeper until chat confirms);
 * - sub-goals whose parent task was abandoned are canceled;
 * - a sub-goal's end settles its parent task: completed with the conclusion, or failed.
 * Each of these is also a sweep (`reconcile`), so a crash between two steps only delays the next one.
 */
@Injectable()
export class GoalLifecycle {
  private readonly logger = new Logger(GoalLifecycle.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly goals: GoalChanges,
    private readonly tasks: TaskChanges,
    private readonly budgets: Budgets,
    private readonly client: ContractClient,
  ) {}

  /** Ends a locked goal inside the caller's transaction; the follow-ups run after commit. */
  async end(unit: UnitOfWork, goal: GoalEntity, outcome: GoalOutcome): Promise<void> {
    if (outcome.status === 'completed') {
      await this.tasks.cancelOpenTasks(unit, goal, 'The group concluded; this task is no longer needed');
      // A budget or turn-limit reason stays: it says why the conclusion came early.
      await this.goals.setStatus(unit, goal, { status: 'completed', conclusion: outcome.conclusion });
    } else {
      const verb = outcome.status === 'canceled' ? 'was canceled' : 'failed';
      await this.tasks.cancelOpenTasks(unit, goal, `The goal ${verb}: ${outcome.reason}`);
      if (outcome.groupAlreadyEnded) goal.groupClosedAt = new Date();
      await this.goals.setStatus(unit, goal, { status: outcome.status, statusReason: outcome.reason });
    }
    const goalId = goal.id;
    unit.afterCommit(() => this.followUp(goalId));
  }

  /** Ends a goal in its own transaction, unless it has ended already. Returns whether it did. */
  async endById(goalId: string, outcome: GoalOutcome): Promise<boolean> {
    return this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(goalId);
      if (!goal || ENDED_GOAL_STATUSES.includes(goal.status)) return false;
      await this.end(unit, goal, outcome);
      return true;
    });
  }

  /**
   * The team is at work again after a person spoke: an answer to its question (`input_required`), or a follow-up
   * that re-opened a completed goal — which starts a new round with fresh budgets.
   */
  async resume(unit: UnitOfWork, goal: GoalEntity): Promise<void> {
    goal.waitingForUser = false;
    if (goal.status === 'completed') {
      goal.roundStartedAt = new Date();
      goal.roundStartTokens = goal.promptTokens + goal.completionTokens;
      goal.conclusionForcedAt = null;
      await this.goals.setStatus(unit, goal, { status: 'working', statusReason: null });
    } else if (goal.status === 'input_required') {
      await this.goals.setStatus(unit, goal, { status: 'working' });
    } else {
      await this.goals.save(unit, goal);
    }
  }

  /** An active goal is `input_required` exactly while its conversation waits for the person; saves the goal. */
  async syncConversationStatus(unit: UnitOfWork, goal: GoalEntity): Promise<void> {
    if (goal.status === 'working' && goal.waitingForUser) {
      await this.goals.setStatus(unit, goal, { status: 'input_required' });
    } else if (goal.status === 'input_required' && !goal.waitingForUser) {
      await this.goals.setStatus(unit, goal, { status: 'working' });
    } else {
      await this.goals.save(unit, goal);
    }
  }

  /** What follows a goal's end; safe to run any number of times. */
  async followUp(goalId: string): Promise<void> {
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: goalId });
    if (!goal) return;
    if (goal.groupId !== null && goal.groupClosedAt === null && ['failed', 'canceled'].includes(goal.status)) {
      await this.closeGroup(goal);
    }
    await this.cancelAbandonedSubGoals(goalId);
    if (goal.parentTaskId !== null) await this.settleParentTask(goal.id);
  }

  /** Cancels sub-goals whose parent task (a task of `parentGoalId`, or of any goal) failed or was canceled. */
  async cancelAbandonedSubGoals(parentGoalId?: string): Promise<void> {
    const children = await this.transactions.manager
      .createQueryBuilder(GoalEntity, 'child')
      .innerJoin(TaskEntity, 'task', 'task.id = child.parentTaskId')
      .where('child.status NOT IN (:...ended)', { ended: ENDED_GOAL_STATUSES })
      .andWhere('task.state IN (:...abandoned)', { abandoned: ABANDONED_TASK_STATES })
      .andWhere(parentGoalId ? 'child.parentGoalId = :parentGoalId' : '1 = 1', { parentGoalId })
      .select(['child.id', 'task.state'])
      .getRawMany<{ child_id: string; task_state: string }>();
    for (const child of children) {
      const ended = await this.endById(child.child_id, {
        status: 'canceled',
        reason: `The task this sub-team worked for was ${child.task_state === 'canceled' ? 'canceled' : child.task_state}`,
      });
      if (ended) this.logger.log(`Sub-goal ${child.child_id} canceled: its parent task is ${child.task_state}`);
    }
  }

  /**
   * A sub-goal ended: its parent task completes with the conclusion, or fails. The child's usage counts towards
   * the parent goal (and its budget). Nothing waited for this synchronously: the parent task's owner reported
   * `working` and moved on.
   */
  async settleParentTask(childGoalId: string): Promise<void> {
    await this.transactions.run(async (unit) => {
      const child = await unit.manager.findOneBy(GoalEntity, { id: childGoalId });
      if (!child?.parentGoalId || !child.parentTaskId) return;
      if (!ENDED_GOAL_STATUSES.includes(child.status)) return;
      const parent = await unit.lockGoal(child.parentGoalId);
      const task = await unit.manager.findOneBy(TaskEntity, { id: child.parentTaskId });
      if (!parent || !task || !isOpenTask(task)) return;
      if (child.status === 'completed') {
        await this.tasks.change(unit, parent, task, {
          state: 'completed',
          result: child.conclusion ?? '',
          statusMessage: `Concluded by a sub-team (goal ${child.id})`,
        });
      } else {
        const what = child.status === 'canceled' ? "The sub-team's goal was canceled" : 'The sub-team failed';
        await this.tasks.change(unit, parent, task, {
          state: 'failed',
          statusMessage: `${what}: ${child.statusReason ?? 'no reason given'}`,
        });
      }
      this.goals.addUsage(parent, {
        promptTokens: child.promptTokens,
        completionTokens: child.completionTokens,
        modelCalls: child.modelCalls,
      });
      await this.goals.save(unit, parent);
      await this.budgets.check(unit, parent);
    });
  }

  /**
   * The sweeper's part: follow-ups a crash (or an unreachable chat) left undone — groups of ended goals still
   * open, abandoned sub-goals, and parent tasks of ended sub-goals still open.
   */
  async reconcile(): Promise<void> {
    const unclosed = await this.transactions.manager.find(GoalEntity, {
      where: { status: In(['failed', 'canceled']), groupId: Not(IsNull()), groupClosedAt: IsNull() },
      take: 50,
    });
    for (const goal of unclosed) await this.closeGroup(goal);
    await this.cancelAbandonedSubGoals();
    const unsettled = await this.transactions.manager
      .createQueryBuilder(GoalEntity, 'child')
      .innerJoin(TaskEntity, 'task', 'task.id = child.parentTaskId')
      .where('child.status IN (:...ended)', { ended: ENDED_GOAL_STATUSES })
      .andWhere('task.state IN (:...open)', { open: ['submitted', 'working', 'input-required'] })
      .select('child.id', 'id')
      .limit(50)
      .getRawMany<{ id: string }>();
    for (const child of unsettled) await this.settleParentTask(child.id);
  }

  private async closeGroup(goal: GoalEntity): Promise<void> {
    if (goal.groupId === null) return;
    const reason = goal.statusReason ?? `The goal ${goal.status === 'canceled' ? 'was canceled' : 'failed'}`;
    try {
      await this.client.request(
        CloseGroupV1,
        { groupId: goal.groupId, reason },
        { idempotencyKey: `close:${goal.id}` },
      );
    } catch (error) {
      if (!(error instanceof ContractError) || error.retryable) {
        this.logger.warn(
          `Goal ${goal.id}: closing group ${goal.groupId} failed, will retry: ${(error as Error)?.message}`,
        );
        return;
      }
      // NOT_FOUND / INVALID_STATE: the group is gone or has ended already; there is nothing left to close.
      this.logger.log(`Goal ${goal.id}: group ${goal.groupId} needs no closing (${error.code}: ${error.message})`);
    }
    await this.transactions.manager.update(GoalEntity, { id: goal.id }, { groupClosedAt: new Date() });
  }
}
