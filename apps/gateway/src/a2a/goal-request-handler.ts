import type { AgentCard, CancelTaskRequest, Task } from '@a2a-js/sdk';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { ContractError } from '@ioa/contracts';
import type { GoalsService } from '../goals/goals.service.js';
import type { A2aTaskStore } from './a2a-task-store.js';
import { goalIdOf, type GoalAgentExecutor } from './goal-agent-executor.js';

/**
 * The SDK's request handler, with one addition: `CancelTask` cancels the goal behind the task first. The SDK only
 * asks the executor to cancel while an execution is live in this process; a task followed by another gateway
 * replica, or by none since a restart, must stop its goal all the same.
 */
export class GoalRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly a2aTasks: A2aTaskStore,
    executor: GoalAgentExecutor,
    private readonly goals: GoalsService,
  ) {
    super(card, a2aTasks, executor);
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = params.id ? await this.a2aTasks.load(params.id, context) : undefined;
    const goalId = goalIdOf(task);
    if (goalId !== undefined) {
      try {
        await this.goals.cancel(goalId, { reason: 'Canceled by the A2A client' });
      } catch (error) {
        // A goal that has already ended: the SDK answers from the task's own state (not cancelable once final).
        if (!(error instanceof ContractError && ['INVALID_STATE', 'NOT_FOUND'].includes(error.code))) throw error;
      }
    }
    return super.cancelTask(params, context);
  }
}
