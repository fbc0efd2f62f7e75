import { Injectable } from '@nestjs/common';
import { In, IsNull, Not } from 'typeorm';
import { ACTIVE_GOAL_STATUSES } from '@ioa/contracts';
import { Transactions } from '@ioa/database';
import { GoalEntity } from '../goals/goal.entity.js';
import { lockGoal } from '../goals/goal-lock.js';
import { checkBudget, exhaustedBudget } from '../goals/goal-state-machine.js';
import { GoalLifecycle } from './goal-lifecycle.js';

/**
 * The sweeper's part of budgets (see `exhaustedBudget`): time budgets run out without any event happening, and a
 * forced conclusion that could not reach chat is asked for again. Usage is checked against the budget where it is
 * spent, by the goal state machine.
 */
@Injectable()
export class Budgets {
  constructor(
    private readonly transactions: Transactions,
    private readonly lifecycle: GoalLifecycle,
  ) {}

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
      if (exhaustedBudget(candidate, new Date()) === null) continue;
      await this.transactions.run(async (unit) => {
        const goal = await lockGoal(unit, candidate.id);
        if (goal) await this.lifecycle.apply(unit, goal, checkBudget(goal, new Date()));
      });
    }
  }
}
