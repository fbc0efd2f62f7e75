import { TaskState, type AgentCard, type CancelTaskRequest, type GetTaskRequest, type Task } from '@a2a-js/sdk';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { ContractError } from '@ioa/contracts';
import type { GoalsService } from '../goals/goals.service.js';
import type { A2aTaskStore } from './a2a-task-store.js';
import { agentMessage, artifactOf, goalIdOf, type GoalAgentExecutor } from './goal-agent-executor.js';
import { finalUpdatesOfGoal } from './goal-task-translator.js';
import { callerOptions } from './account-user.js';

const FINAL_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

/**
 * The SDK's request handler, with two additions for tasks that no execution of this gateway follows (one that
 * another replica follows, or none since a restart):
 * - `CancelTask` cancels the goal behind the task first; the SDK alone would only mark the task.
 * - `GetTask` brings a task whose goal has since ended (or asks the person something) up to date from the goal,
 *   so a client polling after a gateway restart is not told `working` forever.
 */
export class GoalRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly a2aTasks: A2aTaskStore,
    private readonly executor: GoalAgentExecutor,
    private readonly goals: GoalsService,
  ) {
    super(card, a2aTasks, executor);
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = params.id ? await this.a2aTasks.load(params.id, context) : undefined;
    const goalId = goalIdOf(task);
    if (goalId !== undefined) {
      try {
        await this.goals.cancel(goalId, { reason: 'Canceled by the A2A client' }, callerOptions(context));
      } catch (error) {
        // A goal that has already ended: the SDK answers from the task's own state (not cancelable once final).
        if (!(error instanceof ContractError && ['INVALID_STATE', 'NOT_FOUND'].includes(error.code))) throw error;
      }
    }
    return super.cancelTask(params, context);
  }

  override async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await super.getTask(params, context);
    return (await this.catchUp(task, context)) ? super.getTask(params, context) : task;
  }

  /** Writes the goal's outcome into a task nobody follows; returns whether it changed the task. */
  private async catchUp(task: Task, context: ServerCallContext): Promise<boolean> {
    const goalId = goalIdOf(task);
    const state = task.status?.state;
    if (goalId === undefined || state === undefined || FINAL_STATES.includes(state) || this.executor.follows(task.id)) {
      return false;
    }
    const goal = await this.goals.get(goalId, callerOptions(context)).catch(() => undefined);
    if (!goal) return false;
    const updates = finalUpdatesOfGoal(goal);
    const status = updates.find((update) => update.kind === 'status');
    if (!status || status.state === state || status.state === TaskState.TASK_STATE_WORKING) return false;
    const stored = await this.a2aTasks.load(task.id, context);
    if (!stored) return false;
    const artifacts = updates.flatMap((update) => (update.kind === 'artifact' ? [artifactOf(update)] : []));
    await this.a2aTasks.save(
      {
        ...stored,
        status: {
          state: status.state,
          message: agentMessage(task.id, task.contextId, status.text),
          timestamp: new Date().toISOString(),
        },
        artifacts: [
          ...stored.artifacts.filter((kept) => !artifacts.some((added) => added.artifactId === kept.artifactId)),
          ...artifacts,
        ],
      },
      context,
    );
    return true;
  }
}
