import { Injectable, Logger } from '@nestjs/common';
import { In, IsNull, Not } from 'typeorm';
import {
  ABANDONED_TASK_STATES,
  CloseGroupV1,
  ContractError,
  ENDED_GOAL_STATUSES,
  ForceConclusionV1,
  OPEN_TASK_STATES,
  type GoalStatus,
} from '@ioa/contracts';
import { Transactions, type UnitOfWork } from '@ioa/database';
import { ContractClient } from '@ioa/messaging';
import { GoalEntity } from '../goals/goal.entity.js';
import { lockGoal } from '../goals/goal-lock.js';
import {
  abandonSubGoal,
  forcedConclusionUnsent,
  groupClosed,
  usageSpent,
  type GoalDecision,
} from '../goals/goal-state-machine.js';
import { settleFromSubGoal } from '../tasks/task-state-machine.js';
import { TaskEntity } from '../tasks/task.entity.js';
import { GoalChanges } from './goal-changes.js';
import { TaskChanges } from './task-changes.js';

/** A goal that ended in these has its group closed by the scheduler (a concluded group closes itself). */
const GROUP_CLOSING_STATUSES: readonly GoalStatus[] = ['failed', 'canceled'];

/**
 * Applies the goal state machine's decisions, and runs what follows them once they have committed — so that nothing
 * runs on and nothing waits forever:
 * - a goal whose budget ran out has its group concluded for it (`ForceConclusionV1`);
 * - a failed or canceled goal's group is closed (retried by the sweeper until chat confirms);
 * - sub-goals whose parent task was abandoned are canceled;
 * - a sub-goal's end settles its parent task: completed with the conclusion, or failed.
 * Each of these is also a sweep (`reconcile`, `Budgets.enforceBudgets`), so a crash between two steps only delays
 * the next one.
 */
@Injectable()
export class GoalLifecycle {
  private readonly logger = new Logger(GoalLifecycle.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly goals: GoalChanges,
    private readonly tasks: TaskChanges,
    private readonly client: ContractClient,
  ) {}

  /**
   * Writes a decision about a goal locked in `unit` (a rejection becomes the caller's ContractError, with the rule it
   * broke) and queues its follow-ups after commit. Says whether the goal changed.
   */
  async apply(unit: UnitOfWork, goal: GoalEntity, decision: GoalDecision): Promise<boolean> {
    switch (decision.outcome) {
      case 'rejected':
        throw new ContractError(decision.code, decision.reason, { rule: decision.rule, status: goal.status });
      case 'unchanged':
        return false;
      case 'transition':
        break;
    }
    await this.goals.write(unit, goal, decision);
    const { id } = goal;
    const forced = decision.forceConclusion;
    if (forced) unit.afterCommit(() => this.forceConclusion(id, forced.groupId, forced.reason));
    if (decision.followUpEnd) unit.afterCommit(() => this.followUp(id));
    return true;
  }

  /** What follows a goal's end; safe to run any number of times. */
  async followUp(goalId: string): Promise<void> {
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: goalId });
    if (!goal) return;
    if (goal.groupId !== null && goal.groupClosedAt === null && GROUP_CLOSING_STATUSES.includes(goal.status)) {
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
      const reason = `The task this sub-team worked for was ${child.task_state}`;
      const ended = await this.transactions.run(async (unit) => {
        const goal = await lockGoal(unit, child.child_id);
        return goal !== null && this.apply(unit, goal, abandonSubGoal(goal, reason, new Date()));
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
      const parent = await lockGoal(unit, child.parentGoalId);
      const task = await unit.manager.findOneBy(TaskEntity, { id: child.parentTaskId });
      if (!parent || !task) return;
      const now = new Date();
      const settled = settleFromSubGoal(task, child, now);
      if (settled.outcome !== 'transition') return;
      await this.tasks.write(unit, parent, task, settled);
      const usage = {
        promptTokens: child.promptTokens,
        completionTokens: child.completionTokens,
        modelCalls: child.modelCalls,
      };
      await this.apply(unit, parent, usageSpent(parent, usage, now));
    });
  }

  /**
   * The sweeper's part: follow-ups a crash (or an unreachable chat) left undone — groups of ended goals still
   * open, abandoned sub-goals, and parent tasks of ended sub-goals still open.
   */
  async reconcile(): Promise<void> {
    const unclosed = await this.transactions.manager.find(GoalEntity, {
      where: { status: In([...GROUP_CLOSING_STATUSES]), groupId: Not(IsNull()), groupClosedAt: IsNull() },
      take: 50,
    });
    for (const goal of unclosed) await this.closeGroup(goal);
    await this.cancelAbandonedSubGoals();
    const unsettled = await this.transactions.manager
      .createQueryBuilder(GoalEntity, 'child')
      .innerJoin(TaskEntity, 'task', 'task.id = child.parentTaskId')
      .where('child.status IN (:...ended)', { ended: ENDED_GOAL_STATUSES })
      .andWhere('task.state IN (:...open)', { open: OPEN_TASK_STATES })
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
    await this.decide(goal.id, (locked, now) => groupClosed(locked, now));
  }

  /** Asks chat to conclude the group of a goal out of budget; a failure clears the mark so the sweeper asks again. */
  private async forceConclusion(goalId: string, groupId: string, reason: string): Promise<void> {
    try {
      await this.client.request(ForceConclusionV1, { groupId, reason }, { idempotencyKey: `force:${goalId}` });
    } catch (error) {
      if (error instanceof ContractError && !error.retryable) {
        // The group is already concluding or ended: nothing left to force.
        this.logger.log(`Goal ${goalId}: no forced conclusion needed (${error.code}: ${error.message})`);
        return;
      }
      this.logger.warn(`Goal ${goalId}: forcing a conclusion failed, will retry: ${(error as Error)?.message}`);
      await this.decide(goalId, (goal, now) => forcedConclusionUnsent(goal, now));
    }
  }

  /** One decision about a goal in its own unit of work: lock, decide, write (and publish after commit). */
  private async decide(goalId: string, decision: (goal: GoalEntity, now: Date) => GoalDecision): Promise<void> {
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, goalId);
      if (goal) await this.apply(unit, goal, decision(goal, new Date()));
    });
  }
}
