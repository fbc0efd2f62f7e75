import { ContractError, TERMINAL_TASK_STATES, type ReportTaskV1Request } from '@ioa/contracts';
import type { TaskPatch } from '../lifecycle/task-changes.js';
import type { TaskEntity } from './task.entity.js';

export type ReportDecision =
  | { kind: 'apply'; patch: TaskPatch }
  /** Nothing new (a repeated report, e.g. a retry after a lost reply): answer with the task as it is. */
  | { kind: 'unchanged' };

/**
 * What an assignee's report does to its task (A2A states):
 * - an open task (`submitted`, `working`, `input-required`) takes any reported state; `working` and
 *   `input-required` carry a progress note, `completed` the result, `failed` / `rejected` the reason;
 * - the same report twice changes nothing (idempotent), and so does a terminal state reported again;
 * - a canceled task, or a finished one reported differently, is INVALID_STATE — which tells the agent to stop.
 */
export function decideReport(
  task: Pick<TaskEntity, 'id' | 'state' | 'result' | 'statusMessage'>,
  report: Pick<ReportTaskV1Request, 'state' | 'content'>,
): ReportDecision {
  if (task.state === 'canceled') {
    throw new ContractError(
      'INVALID_STATE',
      `Task ${task.id} was canceled${task.statusMessage ? ` (${task.statusMessage})` : ''}: stop working on it`,
      { taskId: task.id, state: task.state },
    );
  }
  if (TERMINAL_TASK_STATES.includes(task.state)) {
    if (report.state === task.state) return { kind: 'unchanged' };
    throw new ContractError(
      'INVALID_STATE',
      `Task ${task.id} is already ${task.state}; it cannot become ${report.state}`,
      {
        taskId: task.id,
        state: task.state,
      },
    );
  }
  switch (report.state) {
    case 'working':
    case 'input-required': {
      const note = report.content ?? task.statusMessage;
      if (report.state === task.state && note === task.statusMessage) return { kind: 'unchanged' };
      return { kind: 'apply', patch: { state: report.state, statusMessage: note } };
    }
    case 'completed':
      return { kind: 'apply', patch: { state: 'completed', result: report.content ?? '' } };
    case 'failed':
    case 'rejected':
      return {
        kind: 'apply',
        patch: {
          state: report.state,
          statusMessage: report.content || `The assignee reported ${report.state} without a reason`,
        },
      };
  }
}
