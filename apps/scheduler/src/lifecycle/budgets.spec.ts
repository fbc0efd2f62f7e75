import 'reflect-metadata';
import type { GoalEntity } from '../goals/goal.entity.js';
import { exhaustedBudget } from './budgets.js';

function aGoal(overrides: Partial<GoalEntity> = {}): GoalEntity {
  return {
    budgetTokens: null,
    budgetSeconds: null,
    promptTokens: 0,
    completionTokens: 0,
    roundStartTokens: 0,
    roundStartedAt: new Date('2026-01-01T00:00:00Z'),
    ...overrides,
  } as GoalEntity;
}

describe('when a goal has run out of budget', () => {
  const now = new Date('2026-01-01T00:00:30Z');

  it('never, without a budget', () => {
    expect(exhaustedBudget(aGoal({ promptTokens: 1e6 }), now)).toBeNull();
  });

  it('when the tokens of this round reach the token budget', () => {
    expect(exhaustedBudget(aGoal({ budgetTokens: 100, promptTokens: 60, completionTokens: 39 }), now)).toBeNull();
    expect(exhaustedBudget(aGoal({ budgetTokens: 100, promptTokens: 60, completionTokens: 40 }), now)).toBe(
      'Token budget reached (100 of 100 tokens): the team concludes with what it has',
    );
  });

  it('counts a re-opened goal from the start of its new round', () => {
    const reopened = aGoal({ budgetTokens: 100, promptTokens: 150, completionTokens: 50, roundStartTokens: 180 });
    expect(exhaustedBudget(reopened, now)).toBeNull();
  });

  it('when the seconds since the round started reach the time budget', () => {
    expect(exhaustedBudget(aGoal({ budgetSeconds: 31 }), now)).toBeNull();
    expect(exhaustedBudget(aGoal({ budgetSeconds: 30 }), now)).toBe(
      'Time budget reached (30 of 30 seconds): the team concludes with what it has',
    );
  });
});
