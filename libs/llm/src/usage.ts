import type { ModelUsageV1 } from '@ioa/contracts';

export function emptyUsage(): ModelUsageV1 {
  return { promptTokens: 0, completionTokens: 0, modelCalls: 0 };
}

export function addUsage(...usages: Array<ModelUsageV1 | undefined>): ModelUsageV1 {
  const total = emptyUsage();
  for (const usage of usages) {
    if (!usage) continue;
    total.promptTokens += usage.promptTokens;
    total.completionTokens += usage.completionTokens;
    total.modelCalls += usage.modelCalls;
  }
  return total;
}

/**
 * Token estimate for text no tokenizer has seen (the offline model): words / 0.75, the usual rule of thumb for
 * English with BPE tokenizers (about 4 tokens per 3 words). Good enough for budgets to behave like real ones.
 */
export function estimateTokens(text: string): number {
  const words = text.split(/\s+/).filter((word) => word.length > 0).length;
  return Math.ceil(words / 0.75);
}

export interface UsageScope {
  goalId?: string;
  agentId?: string;
}

/**
 * Adds up model usage per goal and per agent inside one process (the communicator, a hosted agent). The durable
 * totals live with the goal in the scheduler, which adds the `usage` carried by moves and task reports; this
 * meter is the local view, for logs and for attaching usage to the next report.
 */
export class UsageMeter {
  private readonly byGoal = new Map<string, ModelUsageV1>();
  private readonly byAgent = new Map<string, ModelUsageV1>();
  private totalUsage = emptyUsage();

  record(usage: ModelUsageV1, scope: UsageScope = {}): ModelUsageV1 {
    this.totalUsage = addUsage(this.totalUsage, usage);
    if (scope.goalId) this.byGoal.set(scope.goalId, addUsage(this.byGoal.get(scope.goalId), usage));
    if (scope.agentId) this.byAgent.set(scope.agentId, addUsage(this.byAgent.get(scope.agentId), usage));
    return usage;
  }

  forGoal(goalId: string): ModelUsageV1 {
    return addUsage(this.byGoal.get(goalId));
  }

  forAgent(agentId: string): ModelUsageV1 {
    return addUsage(this.byAgent.get(agentId));
  }

  total(): ModelUsageV1 {
    return addUsage(this.totalUsage);
  }

  /** Forget a finished goal (the process may live for many goals). */
  releaseGoal(goalId: string): void {
    this.byGoal.delete(goalId);
  }
}
