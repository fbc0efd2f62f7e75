import { isTerminalTaskState, type GroupTaskV1, type TaskDraftV1 } from '@ioa/contracts';
import type { AgentProfile } from '../purposes/profiles.js';
import type { ConclusionInput, ConclusionOutput, TurnMoveInput, TurnMoveOutput } from '../purposes/turn.purpose.js';
import { bestMember, isWriter } from './profiles.js';
import { firstSentence, splitClauses, truncate } from './text.js';

const ASSIGNING_MOVES = new Set(['sync_task_assign', 'async_task_assign']);
const MAX_TASKS_PER_MOVE = 8;
const RESULT_EXCERPT = 1500;

function isTerminal(task: GroupTaskV1): boolean {
  return isTerminalTaskState(task.state);
}

function nameOf(members: AgentProfile[], agentId: string): string {
  return members.find((member) => member.agentId === agentId)?.name ?? agentId;
}

/**
 * The request the leader must still act on: a person's message that came after the last task assignment (a
 * follow-up or an answer), else — when nothing was assigned yet — the goal itself.
 */
function openRequest(input: TurnMoveInput): string | undefined {
  const lastAssignment = Math.max(
    0,
    ...input.recentMessages.filter((message) => ASSIGNING_MOVES.has(message.type)).map((message) => message.seq),
  );
  const followUp = input.recentMessages
    .filter((message) => message.type === 'user' && message.seq > lastAssignment)
    .at(-1);
  if (followUp) return followUp.content;
  return input.tasks.length === 0 ? input.goal : undefined;
}

/** One task per clause of `request`, owned by the non-writer member whose skills match the clause best. */
function draftTasks(request: string, members: AgentProfile[]): TaskDraftV1[] {
  const workers = members.filter((member) => !isWriter(member));
  const drafts: TaskDraftV1[] = [];
  for (const clause of splitClauses(request)) {
    const owner = bestMember(clause, workers);
    if (!owner) continue;
    drafts.push({
      assigneeId: owner.agentId,
      description: truncate(clause, 8000),
      abstract: truncate(firstSentence(clause), 120),
    });
    if (drafts.length === MAX_TASKS_PER_MOVE) break;
  }
  return drafts;
}

/** The results of the non-writer tasks as `### <owner>: <abstract>` sections, bounded to fit a task description. */
export function resultSections(tasks: GroupTaskV1[], members: AgentProfile[], budget = 6000): string {
  const writers = new Set(members.filter(isWriter).map((member) => member.agentId));
  const finished = tasks.filter((task) => isTerminal(task) && !writers.has(task.assigneeId));
  const perTask = Math.max(200, Math.floor(budget / Math.max(1, finished.length)) - 100);
  return finished
    .map((task) => {
      const body =
        task.state === 'completed'
          ? (task.result ?? '(no result)')
          : `(${task.state}: ${task.result ?? 'no reason given'})`;
      return `### ${task.assigneeName}: ${task.abstract}\n${truncate(body, Math.min(perTask, RESULT_EXCERPT))}`;
    })
    .join('\n\n');
}

/**
 * `turn.move`, the offline rules (IoA's flow made explicit):
 * - `mustConclude` → `conclude`.
 * - Not the leader → a short `discussion` acknowledging, next speaker = the leader.
 * - Leader with an open request (the goal when the ledger is empty, or a person's message newer than the last
 *   assignment) → one `async_task_assign` with a task per clause for the non-writer member whose skills match it
 *   (description = the clause verbatim, code included), next speaker = itself. When no clause matches anyone: a
 *   `sync_task_assign` to the writer if there is one, else `conclude`.
 * - Leader while tasks are unfinished → `pause` on them.
 * - Leader with every task finished → if a writer member exists and has no task after the last worker's task:
 *   `sync_task_assign` to the writer ("compose a report from these results", the results included); otherwise
 *   `conclude` (the conclusion is written by the `conclusion` purpose).
 * A rejection reason is not interpreted: the rules read the state again, which is what a rejection usually means.
 */
export function turnMove(input: TurnMoveInput): TurnMoveOutput {
  const self = input.self;
  if (input.mustConclude) {
    return { type: 'conclude', content: `Concluding now (${input.reason}).` };
  }
  if (self.agentId !== input.leaderId) {
    const leaderName = nameOf(input.members, input.leaderId);
    return {
      type: 'discussion',
      content: `Noted. ${self.name} has nothing to add at this point; ${leaderName}, over to you.`,
      nextSpeaker: input.leaderId,
    };
  }
  const writer = input.members.find(isWriter);
  const request = openRequest(input);
  if (request !== undefined) {
    const drafts = draftTasks(request, input.members);
    if (drafts.length > 0) {
      const plan = drafts.map((draft) => `${nameOf(input.members, draft.assigneeId)}: ${draft.abstract}`).join('; ');
      return {
        type: 'async_task_assign',
        content: truncate(`Splitting the work. ${plan}. I will wait for the results.`, 20000),
        nextSpeaker: self.agentId,
        tasks: drafts,
      };
    }
    if (writer && !input.tasks.some((task) => task.assigneeId === writer.agentId && !isTerminal(task))) {
      return writerAssignment(input, writer, request);
    }
    if (input.tasks.length === 0) {
      return { type: 'conclude', content: 'No member of this team has a skill that matches the request.' };
    }
  }
  const unfinished = input.tasks.filter((task) => !isTerminal(task));
  if (unfinished.length > 0) {
    return {
      type: 'pause',
      content: truncate(
        `Waiting for ${unfinished.map((task) => `${task.assigneeName} (${task.abstract})`).join(', ')}.`,
        20000,
      ),
      awaitTaskIds: unfinished.slice(0, 16).map((task) => task.taskId),
    };
  }
  if (writer) {
    const lastWorkerTask = input.tasks.map((task) => task.assigneeId !== writer.agentId).lastIndexOf(true);
    const writerTaskAfter = input.tasks.some(
      (task, index) => index > lastWorkerTask && task.assigneeId === writer.agentId,
    );
    if (!writerTaskAfter) return writerAssignment(input, writer, input.goal);
  }
  return { type: 'conclude', content: 'Every task has finished; concluding with the results.' };
}

function writerAssignment(input: TurnMoveInput, writer: AgentProfile, request: string): TurnMoveOutput {
  const sections = resultSections(input.tasks, input.members);
  // First sentence short (it becomes the brief's abstract); the request on its own line for the writer's title.
  const description = truncate(
    `Compose a report from the results below.\n\nGoal: ${request}${sections ? `\n\n${sections}` : ''}`,
    8000,
  );
  return {
    type: 'sync_task_assign',
    content: `${writer.name}, please compose the report from the results.`,
    nextSpeaker: input.self.agentId,
    tasks: [{ assigneeId: writer.agentId, description, abstract: 'Compose a report from the results' }],
  };
}

/**
 * `conclusion`: the writer's latest completed report when there is one, otherwise a summary listing every task
 * with its state and (bounded) result. A forced conclusion says so first.
 */
export function conclusion(input: ConclusionInput): ConclusionOutput {
  const writers = new Set(input.members.filter(isWriter).map((member) => member.agentId));
  const report = input.tasks
    .filter((task) => writers.has(task.assigneeId) && task.state === 'completed' && task.result)
    .at(-1);
  const forcedNote = input.forced ? `_Concluded early: ${input.reason}._\n\n` : '';
  if (report?.result) return { conclusion: truncate(`${forcedNote}${report.result}`, 20000) };
  const lines = input.tasks.map((task) => {
    const outcome = task.result ? `: ${truncate(task.result, RESULT_EXCERPT)}` : '';
    return `- **${task.assigneeName}** — ${task.abstract} (${task.state})${outcome}`;
  });
  const discussion = input.recentMessages
    .filter((message) => message.type !== 'system')
    .slice(-3)
    .map((message) => `- ${message.senderName}: ${truncate(message.content, 300)}`);
  const body =
    lines.length > 0
      ? `Results:\n${lines.join('\n')}`
      : `No tasks were run.${discussion.length > 0 ? `\n\nLast messages:\n${discussion.join('\n')}` : ''}`;
  return { conclusion: truncate(`## ${firstSentence(input.goal, 200)}\n\n${forcedNote}${body}`, 20000) };
}
