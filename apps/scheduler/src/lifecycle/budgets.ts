import { Injectable, Logger } from '@nestjs/common';
import { In, IsNull, Not } from 'typeorm';
import { ContractError, ForceConclusionV1 } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { ACTIVE_GOAL_STATUSES, GoalEntity } from '../goals/goal.entity.js';
import { totalTokens } from '../goals/goal.mapper.js';
import { Transactions, type UnitOfWork } from '../persistence/unit-of-work.js';
import { GoalChanges } from './goal-changes.js';

/**
 * Why the goal's current round has run out of budget, or null. Budgets count per round (see
 * `GoalEntity.roundStartedAt`): tokens used since the round started, seconds since it started.
 */
export function exhaustedBudget(goal: GoalEntity, now = new Date()): string | null {
  if (goal.budgetTokens !== null) {
    const used = totalTokens(goal) - goal.roundStartTokens;
    if (used >= goal.budgetTokens) {
      return `Token budget reached (${used} of ${goal.budgetTokens} tokens): the team concludes with what it has`;
    }
  }
  if (goal.budgetSeconds !== null) {
    const elapsed = Math.floor((now.getTime() - goal.roundStartedAt.getTime()) / 1000);
    if (elapsed >= goal.budgetSeconds) {
      return `Time budget reached (${elapsed} of ${goal.budgetSeconds} seconds): the team concludes with what it has`;
    }
  }
  return null;
}

/**
 * Budgets: a goal whose tokens or seconds run out is brought to a conclusion with what it has (`ForceConclusionV1`
 * makes its leader conclude), and its `statusReason` says so. Asked once per round; a request that could not reach
 * chat is asked again by the sweeper.
 */
@Injectable()
export class Budgets {
  private readonly logger = new Logger(Budgets.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly changes: GoalChanges,
    private readonly client: ContractClient,
  ) {}

  /** Inside a transaction holding the goal: when its budget ran out, records why and forces a conclusion after commit. */
  async check(unit: UnitOfWork, goal: GoalEntity): Promise<void> {
    if (!ACTIVE_GOAL_STATUSES.includes(goal.status) || goal.conclusionForcedAt !== null || goal.groupId === null) {
      return;
    }
    const reason = exhaustedBudget(goal);
    if (reason === null) return;
    goal.conclusionForcedAt = new Date();
    goal.statusReason = reason;
    await this.changes.save(unit, goal);
    await this.changes.recordStatus(unit, goal, goal.status);
    const { id, groupId } = goal;
    unit.afterCommit(() => this.forceConclusion(id, groupId, reason));
  }

  /**
   * The sweeper's part: time budgets run out without any event happening, and a forced conclusion that could not
   * reach chat is asked for again.
   */
  async enforceBudgets(): Promise<void> {
    const open = { status: In([...ACTIVE_GOAL_STATUSES]), conclusionForcedAt: IsNull(), groupId: Not(IsNull()) };
    const candidates = await this.transactions.manager.find(GoalEntity, {
      where: [
        { ...open, budgetSeconds: Not(IsNull()) },
        { ...open, budgetTokens: Not(IsNull()) },
      ],
      take: 100,
    });
    for (const candidate of candidates) {
      if (exhaustedBudget(candidate) === null) continue;
      await this.transactions.run(async (unit) => {
        const goal = await unit.lockGoal(candidate.id);
        if (goal) await this.check(unit, goal);
      });
    }
  }

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
      await this.transactions.manager.update(GoalEntity, { id: goalId }, { conclusionForcedAt: null });
    }
  }
}
