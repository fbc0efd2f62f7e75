import type { GoalBudgetV1, GoalStatus, GoalUsageV1 } from '@ioa/contracts';

export const STATUS_COLOURS: Record<GoalStatus, string> = {
  submitted: 'gray',
  forming_team: 'blue',
  working: 'blue',
  input_required: 'orange',
  completed: 'green',
  failed: 'red',
  canceled: 'gray',
};

/** "1,234 tokens" or "1,234 / 5,000 tokens" against the budget. */
export function tokensOf(usage: GoalUsageV1, budget: GoalBudgetV1): string {
  const spent = (usage.promptTokens + usage.completionTokens).toLocaleString('en');
  return budget.tokens ? `${spent} / ${budget.tokens.toLocaleString('en')}` : spent;
}
