import type { TaskState } from '@ioa/contracts';

/**
 * The texts the chat service writes itself (progress and result notices, turn hand-overs, the forced summary).
 * Templates, never a model: they must be cheap, deterministic and say exactly what happened.
 */

/** Results and failure reasons are bounded in the ledger (and in the prompts built from it); the full text stays in
 * the scheduler's task. Result notices may carry more, since they are what a writer or a concluding leader reads. */
export const LEDGER_RESULT_MAX = 2000;
export const NOTICE_RESULT_MAX = 8000;

export function bound(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface NoticeTask {
  taskId: string;
  assigneeName: string;
  abstract: string;
  mode: 'sync' | 'async';
  state: TaskState;
  result: string | null;
}

export const notices = {
  opened: (goal: string, leaderName: string, memberNames: string[]) =>
    `Group formed for the goal: ${goal}\nMembers: ${memberNames.join(', ')}. ${leaderName} leads and speaks first.`,

  turnLimit: (maxTurns: number, leaderName: string) =>
    `Turn limit reached (${maxTurns} turns): ${leaderName} must conclude now with what the group has.`,

  turnTimedOut: (speakerName: string, turn: number, timeoutSeconds: number, nextName: string) =>
    `${speakerName} did not move within ${timeoutSeconds} s (turn ${turn}); the turn passes to ${nextName}.`,

  concludedOnTimeout: (leaderName: string, timeoutSeconds: number, tasks: NoticeTask[]) =>
    [
      `${leaderName} did not conclude within ${timeoutSeconds} s, so the chat service concluded the group itself ` +
        `with a summary of the task results (written by the system, not by a member).`,
      '',
      tasks.length === 0 ? 'No task was assigned in this group.' : summarizeTasks(tasks),
    ].join('\n'),

  forced: (reason: string, leaderName: string) =>
    `Conclusion forced: ${reason}. ${leaderName} must conclude now with what the group has.`,

  closed: (reason: string) => `Group closed without a conclusion: ${reason}. No more turns will be granted.`,

  reopened: (leaderName: string, maxTurns: number) =>
    `A person's follow-up re-opened the group; ${leaderName} has the turn (turn limit now ${maxTurns}).`,

  taskWorking: (task: NoticeTask, note: string | null) =>
    `${task.assigneeName} is working on “${task.abstract}” (${task.mode})${note ? `: ${note}` : '.'}`,

  taskProgress: (task: NoticeTask, note: string) => `Progress on “${task.abstract}” from ${task.assigneeName}: ${note}`,

  taskInputRequired: (task: NoticeTask, note: string | null) =>
    `${task.assigneeName} needs input to continue “${task.abstract}”${note ? `: ${note}` : '.'}`,

  taskCompleted: (task: NoticeTask, result: string | null) =>
    `${task.assigneeName} completed “${task.abstract}” (${task.mode}).\n\n${result ? bound(result, NOTICE_RESULT_MAX) : '(no result text)'}`,

  taskFailed: (task: NoticeTask, state: TaskState, reason: string | null) =>
    `${task.assigneeName} did not complete “${task.abstract}” (${state})${reason ? `: ${bound(reason, NOTICE_RESULT_MAX)}` : '.'}`,

  taskCanceled: (task: NoticeTask, reason: string | null) =>
    `“${task.abstract}” (${task.assigneeName}) was canceled${reason ? `: ${reason}` : '.'}`,
};

function summarizeTasks(tasks: NoticeTask[]): string {
  const lines = ['Task results:'];
  for (const task of tasks) {
    const outcome = task.result ? `: ${task.result}` : '';
    lines.push(`- ${task.abstract} (${task.assigneeName}, ${task.state})${outcome}`);
  }
  return lines.join('\n');
}
