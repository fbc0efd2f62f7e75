import {
  isTerminalTaskState,
  SYSTEM_SENDER,
  USER_SPEAKER,
  type ErrorCode,
  type GroupState,
  type MessageType,
  type ModelUsageV1,
  type MoveType,
  type TaskState,
} from '@ioa/contracts';
import { bound, LEDGER_RESULT_MAX, notices } from './notices.js';

/**
 * The conversation state machine of a group chat — the single authority over who may speak and what a move does.
 *
 * Pure: every function takes a snapshot of the group (as read under the group's row lock) plus the input, and
 * returns either a rejection with a reason the member can act on, "unchanged", or the complete transition: the new
 * conversation fields, the messages to append (in order), the ledger rows to write, the tasks to announce, the turn
 * to grant and the state change to report. The service persists the transition in one transaction and publishes
 * its events after commit; nothing here touches a database, a clock or the network.
 *
 *   discussing ──sync_task_assign──▶ awaiting_sync_tasks ──last awaited task terminal──▶ discussing (turn: assigner)
 *   discussing ──pause(taskIds)────▶ paused              ──last awaited task terminal──▶ discussing (turn: pauser)
 *   discussing ──turn > maxTurns / forced──▶ concluding ──conclude (or leader times out)──▶ concluded
 *   discussing ──conclude──▶ concluded ──person's message──▶ discussing (re-opened, turn: leader)
 *   any open state ──close──▶ failed
 *
 * Turns: the counter grows by one every time an agent is granted the turn. Handing the turn to the person
 * (`nextSpeaker: 'user'`) grants no turn and has no deadline; their answer gives the asker the next turn.
 */

export interface ConversationMember {
  agentId: string;
  name: string;
  reason: string | null;
}

/** A row of the group's task ledger: the chat's copy of what it needs to know about each task. */
export interface LedgerTask {
  taskId: string;
  assigneeId: string;
  assigneeName: string;
  assignerId: string;
  mode: 'sync' | 'async';
  abstract: string;
  description: string;
  /** A2A task state as last reported by the scheduler (`submitted` until then). */
  state: TaskState;
  /** Result, or the failure reason, bounded. */
  result: string | null;
  statusMessage: string | null;
  /** `updatedAt` of the scheduler's task version last applied (drops stale, out-of-order updates). */
  sourceUpdatedAt: string | null;
}

/** The mutable conversation fields of a group. */
export interface ConversationFields {
  state: GroupState;
  /** An agent id, `user`, or null when nobody may speak. */
  currentSpeaker: string | null;
  turn: number;
  maxTurns: number;
  /** Set exactly when an agent holds the turn. */
  turnDeadline: Date | null;
  awaitingTaskIds: string[];
  /** Who speaks when the current wait ends: the sync assigner, the pauser, or the member who asked the person. */
  resumeSpeakerId: string | null;
  conclusion: string | null;
}

export interface ConversationSnapshot extends ConversationFields {
  groupId: string;
  goalId: string;
  goal: string;
  leaderId: string;
  /** In round-robin order (the order the group was created with). */
  members: ConversationMember[];
  /** The maxTurns the group was created with; a re-open extends the limit by this much. */
  originalMaxTurns: number;
  turnTimeoutSeconds: number;
  /** In assignment order. */
  tasks: LedgerTask[];
}

export interface TaskDraft {
  assigneeId: string;
  description: string;
  abstract: string;
}

export interface ProposedMove {
  speakerId: string;
  turn: number;
  type: MoveType;
  content: string;
  nextSpeaker?: string;
  tasks?: TaskDraft[];
  awaitTaskIds?: string[];
  usage?: ModelUsageV1;
}

/** A task as the scheduler reports it (the fields of `TaskV1` the chat needs). */
export interface TaskUpdate {
  taskId: string;
  state: TaskState;
  result: string | null;
  statusMessage: string | null;
  updatedAt: string;
}

export interface MessageDraft {
  type: MessageType;
  senderId: string;
  senderName: string;
  content: string;
  nextSpeaker: string | null;
  /** The ledger rows the message is about (assigned tasks, or the task a notice reports on), as of this transition. */
  tasks: LedgerTask[] | null;
  awaitTaskIds: string[] | null;
  usage: ModelUsageV1 | null;
}

export interface TurnGrant {
  speakerId: string;
  reason: string;
  mustConclude: boolean;
}

export interface TaskAssignment {
  mode: 'sync' | 'async';
  assignerId: string;
  /** Index in `messages` of the move that assigned the tasks. */
  messageIndex: number;
  tasks: LedgerTask[];
  drafts: TaskDraft[];
}

export interface Transition {
  outcome: 'transition';
  fields: ConversationFields;
  messages: MessageDraft[];
  /** Ledger rows to insert or update. */
  ledger: LedgerTask[];
  assignment: TaskAssignment | null;
  /** Set when an agent is granted a new turn (always together with a new `turn` and `turnDeadline`). */
  grant: TurnGrant | null;
  stateChange: { previousState: GroupState; reason: string } | null;
}

/** Stable identifiers of the rules a rejected move broke (also sent as `details.rule`). */
export type RejectionRule =
  | 'GROUP_CLOSED'
  | 'GROUP_CONCLUDED'
  | 'NOT_A_MEMBER'
  | 'AWAITING_SYNC_TASKS'
  | 'SYNC_TASKS_OPEN'
  | 'PAUSED'
  | 'WAITING_FOR_USER'
  | 'STALE_TURN'
  | 'NOT_YOUR_TURN'
  | 'MUST_CONCLUDE'
  | 'NEXT_SPEAKER_REQUIRED'
  | 'UNKNOWN_NEXT_SPEAKER'
  | 'SELF_NEXT_SPEAKER'
  | 'TASKS_REQUIRED'
  | 'TOO_MANY_TASKS'
  | 'ASSIGNEE_NOT_MEMBER'
  | 'AWAIT_TASKS_REQUIRED'
  | 'UNKNOWN_TASK'
  | 'TASK_FINISHED';

export interface Rejection {
  outcome: 'rejected';
  /** FORBIDDEN when the caller has no say in this group at all; INVALID_STATE for everything it can correct. */
  code: Extract<ErrorCode, 'INVALID_STATE' | 'FORBIDDEN'>;
  rule: RejectionRule;
  reason: string;
}

export interface Unchanged {
  outcome: 'unchanged';
  why: string;
  /** The input points at a bug elsewhere (worth a warning in the log), not at a harmless repeat. */
  suspicious?: boolean;
}

export type Decision = Transition | Rejection | Unchanged;

export const MAX_TASKS_PER_MOVE = 8;

// ---------------------------------------------------------------------------------------------------------------
// opening

/** The conversation of a new group: discussing, turn 1, the leader speaks first. */
export function openConversation(
  input: {
    goal: string;
    leaderId: string;
    members: ConversationMember[];
    maxTurns: number;
    turnTimeoutSeconds: number;
  },
  now: Date,
): { fields: ConversationFields; message: MessageDraft; grant: TurnGrant } {
  const leader = input.members.find((member) => member.agentId === input.leaderId);
  if (!leader) throw new Error('the leader must be a member');
  return {
    fields: {
      state: 'discussing',
      currentSpeaker: leader.agentId,
      turn: 1,
      maxTurns: input.maxTurns,
      turnDeadline: deadlineFrom(now, input.turnTimeoutSeconds),
      awaitingTaskIds: [],
      resumeSpeakerId: null,
      conclusion: null,
    },
    message: systemMessage(
      'system',
      notices.opened(
        input.goal,
        leader.name,
        input.members.map((member) => member.name),
      ),
    ),
    grant: { speakerId: leader.agentId, reason: 'You lead this group: open the discussion.', mustConclude: false },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// moves

/** Validates a member's proposed move against the group's state and applies it. */
export function proposeMove(
  snapshot: ConversationSnapshot,
  move: ProposedMove,
  now: Date,
  mintTaskId: () => string,
): Decision {
  if (snapshot.state === 'failed') {
    return reject('INVALID_STATE', 'GROUP_CLOSED', 'This group was closed; it accepts no more moves.');
  }
  if (snapshot.state === 'concluded') {
    return reject(
      'INVALID_STATE',
      'GROUP_CONCLUDED',
      "This group has concluded; it accepts no more moves unless a person's follow-up re-opens it.",
    );
  }
  const speaker = memberById(snapshot, move.speakerId);
  if (!speaker) {
    return reject(
      'FORBIDDEN',
      'NOT_A_MEMBER',
      `${move.speakerId} is not a member of this group; only its members (${memberList(snapshot)}) may move.`,
    );
  }
  if (snapshot.state === 'awaiting_sync_tasks') {
    const waitingFor = describeTasks(snapshot, snapshot.awaitingTaskIds);
    const resumer = nameOf(snapshot, snapshot.resumeSpeakerId);
    if (move.type === 'conclude') {
      return reject(
        'INVALID_STATE',
        'SYNC_TASKS_OPEN',
        `No conclusion while sync tasks are open: the group waits for ${waitingFor}; ${resumer} gets the turn when they finish.`,
      );
    }
    return reject(
      'INVALID_STATE',
      'AWAITING_SYNC_TASKS',
      `Nobody holds the turn while the group waits for its sync tasks (${waitingFor}); ${resumer} gets the turn when they finish.`,
    );
  }
  if (snapshot.state === 'paused') {
    return reject(
      'INVALID_STATE',
      'PAUSED',
      `The group is paused until ${describeTasks(snapshot, snapshot.awaitingTaskIds)} finish; ` +
        `${nameOf(snapshot, snapshot.resumeSpeakerId)} gets the turn then.`,
    );
  }
  if (snapshot.currentSpeaker === USER_SPEAKER) {
    return reject(
      'INVALID_STATE',
      'WAITING_FOR_USER',
      `The group waits for the person to answer ${nameOf(snapshot, snapshot.resumeSpeakerId)}'s question; ` +
        `nobody else may speak until they do.`,
    );
  }
  if (move.turn !== snapshot.turn) {
    const holder = nameOf(snapshot, snapshot.currentSpeaker);
    return reject(
      'INVALID_STATE',
      'STALE_TURN',
      move.turn < snapshot.turn
        ? `Turn ${move.turn} is over (it was answered or timed out); the group is at turn ${snapshot.turn}, held by ${holder}.`
        : `Turn ${move.turn} has not started; the group is at turn ${snapshot.turn}, held by ${holder}.`,
    );
  }
  if (snapshot.currentSpeaker !== speaker.agentId) {
    return reject(
      'INVALID_STATE',
      'NOT_YOUR_TURN',
      `It is ${nameOf(snapshot, snapshot.currentSpeaker)}'s turn (turn ${snapshot.turn}), not ${speaker.name}'s.`,
    );
  }
  if (snapshot.state === 'concluding' && move.type !== 'conclude') {
    return reject(
      'INVALID_STATE',
      'MUST_CONCLUDE',
      `This turn must conclude: the group is concluding, so only a \`conclude\` move (the final answer) is accepted, not \`${move.type}\`.`,
    );
  }
  switch (move.type) {
    case 'discussion':
      return discuss(snapshot, speaker, move, now);
    case 'sync_task_assign':
    case 'async_task_assign':
      return assignTasks(snapshot, speaker, move, now, mintTaskId);
    case 'pause':
      return pause(snapshot, speaker, move, now);
    case 'conclude':
      return conclude(snapshot, speaker, move, now);
  }
}

function discuss(snapshot: ConversationSnapshot, speaker: ConversationMember, move: ProposedMove, now: Date): Decision {
  const next = checkNextSpeaker(snapshot, speaker, move, { allowSelf: snapshot.members.length === 1 });
  if (typeof next !== 'string') return next;
  const builder = new TransitionBuilder(snapshot, now);
  builder.say(moveMessage(move, speaker, { nextSpeaker: next }));
  passTo(builder, speaker, next, `${speaker.name} named you to speak next.`);
  return builder.build(`${speaker.name} spoke`);
}

function assignTasks(
  snapshot: ConversationSnapshot,
  speaker: ConversationMember,
  move: ProposedMove,
  now: Date,
  mintTaskId: () => string,
): Decision {
  const mode = move.type === 'sync_task_assign' ? 'sync' : 'async';
  const drafts = move.tasks ?? [];
  if (drafts.length === 0) {
    return reject('INVALID_STATE', 'TASKS_REQUIRED', `A ${move.type} move needs 1 to ${MAX_TASKS_PER_MOVE} tasks.`);
  }
  if (drafts.length > MAX_TASKS_PER_MOVE) {
    return reject(
      'INVALID_STATE',
      'TOO_MANY_TASKS',
      `A move may assign at most ${MAX_TASKS_PER_MOVE} tasks, not ${drafts.length}.`,
    );
  }
  for (const [index, draft] of drafts.entries()) {
    if (!memberById(snapshot, draft.assigneeId)) {
      return reject(
        'INVALID_STATE',
        'ASSIGNEE_NOT_MEMBER',
        `Task ${index + 1} (“${draft.abstract}”) is assigned to ${draft.assigneeId}, who is not a member; ` +
          `tasks may only go to members (${memberList(snapshot)}).`,
      );
    }
  }
  // Sync tasks hand the turn back to the assigner when they finish, so `nextSpeaker` only matters for async moves.
  let next: string | undefined;
  if (mode === 'async') {
    const checked = checkNextSpeaker(snapshot, speaker, move, { allowSelf: true });
    if (typeof checked !== 'string') return checked;
    next = checked;
  }
  const tasks: LedgerTask[] = drafts.map((draft) => ({
    taskId: mintTaskId(),
    assigneeId: draft.assigneeId,
    assigneeName: memberById(snapshot, draft.assigneeId)!.name,
    assignerId: speaker.agentId,
    mode,
    abstract: draft.abstract,
    description: draft.description,
    state: 'submitted',
    result: null,
    statusMessage: null,
    sourceUpdatedAt: null,
  }));
  const builder = new TransitionBuilder(snapshot, now);
  builder.ledger.push(...tasks);
  builder.assignment = { mode, assignerId: speaker.agentId, messageIndex: 0, tasks, drafts };
  builder.say(moveMessage(move, speaker, { nextSpeaker: next ?? null, tasks }));
  if (mode === 'sync') {
    builder.waitFor(
      tasks.map((task) => task.taskId),
      speaker.agentId,
    );
    builder.fields.state = 'awaiting_sync_tasks';
    return builder.build(`${speaker.name} assigned ${tasks.length} sync task(s); the group waits for them`);
  }
  passTo(builder, speaker, next!, `${speaker.name} assigned background tasks and named you to speak next.`);
  return builder.build(`${speaker.name} assigned ${tasks.length} async task(s)`);
}

function pause(snapshot: ConversationSnapshot, speaker: ConversationMember, move: ProposedMove, now: Date): Decision {
  const taskIds = [...new Set(move.awaitTaskIds ?? [])];
  if (taskIds.length === 0) {
    return reject(
      'INVALID_STATE',
      'AWAIT_TASKS_REQUIRED',
      'A pause must name the unfinished tasks to wait for (awaitTaskIds).',
    );
  }
  for (const taskId of taskIds) {
    const task = snapshot.tasks.find((candidate) => candidate.taskId === taskId);
    if (!task) {
      return reject(
        'INVALID_STATE',
        'UNKNOWN_TASK',
        `Task ${taskId} is not a task of this group; a pause can only wait for the group's own unfinished tasks` +
          ` (${describeOpenTasks(snapshot)}).`,
      );
    }
    if (isTerminalTaskState(task.state)) {
      return reject(
        'INVALID_STATE',
        'TASK_FINISHED',
        `Task “${task.abstract}” (${task.taskId}) has already finished (${task.state}); its outcome is in the ledger. ` +
          `Pause only on unfinished tasks (${describeOpenTasks(snapshot)}).`,
      );
    }
  }
  const builder = new TransitionBuilder(snapshot, now);
  builder.say(moveMessage(move, speaker, { awaitTaskIds: taskIds }));
  builder.waitFor(taskIds, speaker.agentId);
  builder.fields.state = 'paused';
  return builder.build(`${speaker.name} paused until ${taskIds.length} task(s) finish`);
}

function conclude(
  snapshot: ConversationSnapshot,
  speaker: ConversationMember,
  move: ProposedMove,
  now: Date,
): Decision {
  // In `concluding` the conclusion is owed whatever still runs (turn limit or budget); the scheduler cancels the rest.
  const openSync = snapshot.tasks.filter((task) => task.mode === 'sync' && !isTerminalTaskState(task.state));
  if (snapshot.state !== 'concluding' && openSync.length > 0) {
    return reject(
      'INVALID_STATE',
      'SYNC_TASKS_OPEN',
      `No conclusion while sync tasks are open: ${describeTasks(
        snapshot,
        openSync.map((task) => task.taskId),
      )}.`,
    );
  }
  const builder = new TransitionBuilder(snapshot, now);
  builder.say(moveMessage(move, speaker, {}));
  builder.endConversation('concluded', move.content);
  return builder.build(`${speaker.name} concluded`);
}

// ---------------------------------------------------------------------------------------------------------------
// the person, the scheduler and the clock

/**
 * A person speaks: a concluded group re-opens (turn to the leader, turn limit extended by the original limit); an
 * answer to a question gives the turn back to the member who asked; otherwise the message just joins the history.
 */
export function postUserMessage(
  snapshot: ConversationSnapshot,
  input: { content: string; author: string },
  now: Date,
): Decision {
  if (snapshot.state === 'failed') {
    return reject('INVALID_STATE', 'GROUP_CLOSED', 'This group was closed; it accepts no more messages.');
  }
  const builder = new TransitionBuilder(snapshot, now);
  builder.say({
    ...emptyMessage(),
    type: 'user',
    senderId: USER_SPEAKER,
    senderName: input.author,
    content: input.content,
  });
  const leader = memberById(snapshot, snapshot.leaderId)!;
  if (snapshot.state === 'concluded') {
    builder.fields.state = 'discussing';
    builder.fields.conclusion = null;
    builder.fields.maxTurns = snapshot.maxTurns + snapshot.originalMaxTurns;
    builder.say(systemMessage('system', notices.reopened(leader.name, builder.fields.maxTurns)));
    builder.handTurnTo(leader.agentId, `${input.author} re-opened the group with a follow-up.`);
    return builder.build(`re-opened by a follow-up from ${input.author}`);
  }
  if (snapshot.currentSpeaker === USER_SPEAKER) {
    const asker = memberById(snapshot, snapshot.resumeSpeakerId ?? '') ?? leader;
    builder.fields.resumeSpeakerId = null;
    builder.handTurnTo(asker.agentId, `${input.author} answered your question.`);
    return builder.build(`${input.author} answered`);
  }
  return builder.build(`${input.author} posted a message`);
}

/** Budget or turn limit: the leader must conclude now with what the group has. */
export function forceConclusion(snapshot: ConversationSnapshot, reason: string, now: Date): Decision {
  if (snapshot.state === 'failed') {
    return reject('INVALID_STATE', 'GROUP_CLOSED', 'This group was closed; it cannot conclude.');
  }
  if (snapshot.state === 'concluded') {
    return reject('INVALID_STATE', 'GROUP_CONCLUDED', 'This group has already concluded.');
  }
  if (snapshot.state === 'concluding') return { outcome: 'unchanged', why: 'already concluding' };
  const leader = memberById(snapshot, snapshot.leaderId)!;
  const builder = new TransitionBuilder(snapshot, now);
  builder.fields.state = 'concluding';
  builder.fields.awaitingTaskIds = [];
  builder.fields.resumeSpeakerId = null;
  builder.say(systemMessage('system', notices.forced(reason, leader.name)));
  builder.handTurnTo(leader.agentId, `Conclusion forced: ${reason}. Conclude now with what the group has.`);
  return builder.build(`conclusion forced: ${reason}`);
}

/**
 * Goal canceled or failed: an open group ends without a conclusion and grants no more turns. A concluded group has
 * already ended and keeps its conclusion (closing it must not turn a completed goal into a failed one).
 */
export function closeGroup(snapshot: ConversationSnapshot, reason: string, now: Date): Decision {
  if (snapshot.state === 'failed') return { outcome: 'unchanged', why: 'already closed' };
  if (snapshot.state === 'concluded') return { outcome: 'unchanged', why: 'already concluded' };
  const builder = new TransitionBuilder(snapshot, now);
  builder.say(systemMessage('system', notices.closed(reason)));
  builder.endConversation('failed', snapshot.conclusion);
  return builder.build(`closed: ${reason}`);
}

/**
 * The turn holder let its deadline pass: the turn goes round-robin to the next member; a leader who lets a
 * must-conclude turn pass gets the group concluded for it with a system-written summary of the task results.
 */
export function timeOutTurn(snapshot: ConversationSnapshot, now: Date): Decision {
  const speaker = memberById(snapshot, snapshot.currentSpeaker ?? '');
  if (!speaker || !snapshot.turnDeadline || snapshot.turnDeadline.getTime() > now.getTime()) {
    return { outcome: 'unchanged', why: 'no agent turn is overdue' };
  }
  const builder = new TransitionBuilder(snapshot, now);
  if (snapshot.state === 'concluding') {
    const summary = notices.concludedOnTimeout(speaker.name, snapshot.turnTimeoutSeconds, snapshot.tasks);
    builder.say(systemMessage('conclude', summary));
    builder.endConversation('concluded', summary);
    return builder.build(`${speaker.name} did not conclude in time; the chat service concluded with a summary`);
  }
  if (snapshot.state !== 'discussing') return { outcome: 'unchanged', why: `no turns run in ${snapshot.state}` };
  const next = nextInRoundRobin(snapshot, speaker.agentId);
  builder.say(
    systemMessage('system', notices.turnTimedOut(speaker.name, snapshot.turn, snapshot.turnTimeoutSeconds, next.name)),
  );
  builder.handTurnTo(next.agentId, `${speaker.name}'s turn ${snapshot.turn} timed out; the turn passed to you.`);
  return builder.build(`${speaker.name}'s turn timed out`);
}

/**
 * The scheduler reports a task: the ledger follows, a progress or result notice is written, and when the last
 * awaited task of a sync wait or a pause is terminal, the assigner (or pauser) gets the turn. Redelivered and stale
 * reports change nothing.
 */
export function applyTaskUpdate(snapshot: ConversationSnapshot, update: TaskUpdate, now: Date): Decision {
  const known = snapshot.tasks.find((task) => task.taskId === update.taskId);
  // Chat mints every task id of its groups, so an unknown task is the scheduler's mistake (or another group's
  // task with the wrong group id); adopting it could clash with that group's ledger, so it is only reported.
  if (!known) {
    return { outcome: 'unchanged', why: `task ${update.taskId} is not in this group's ledger`, suspicious: true };
  }
  if (isTerminalTaskState(known.state)) return { outcome: 'unchanged', why: `task already ${known.state}` };
  if (known.state === update.state && known.statusMessage === update.statusMessage) {
    return { outcome: 'unchanged', why: 'update already applied' };
  }
  if (known.sourceUpdatedAt && Date.parse(update.updatedAt) < Date.parse(known.sourceUpdatedAt)) {
    return { outcome: 'unchanged', why: 'stale update' };
  }
  const result = update.result === null ? null : bound(update.result, LEDGER_RESULT_MAX);
  const reason = update.statusMessage ?? update.result;
  const terminal = isTerminalTaskState(update.state);
  const task: LedgerTask = {
    ...known,
    state: update.state,
    // For failures, the ledger's result is the reason (bounded), so prompts show why a task did not deliver.
    result: terminal && update.state !== 'completed' ? boundOrNull(reason) : result,
    statusMessage: update.statusMessage,
    sourceUpdatedAt: update.updatedAt,
  };
  const builder = new TransitionBuilder(snapshot, now);
  builder.ledger.push(task);
  const notice = taskNotice(known, task, update);
  if (notice) builder.say({ ...systemMessage(notice.type, notice.content), tasks: [task] });

  if (terminal && snapshot.awaitingTaskIds.includes(task.taskId)) {
    builder.fields.awaitingTaskIds = snapshot.awaitingTaskIds.filter((taskId) => taskId !== task.taskId);
    const waiting = snapshot.state === 'awaiting_sync_tasks' || snapshot.state === 'paused';
    if (waiting && builder.fields.awaitingTaskIds.length === 0) {
      const resumer = memberById(snapshot, snapshot.resumeSpeakerId ?? '') ?? memberById(snapshot, snapshot.leaderId)!;
      const why =
        snapshot.state === 'awaiting_sync_tasks'
          ? 'The sync tasks you assigned have finished; their outcomes are in the ledger.'
          : 'The tasks you paused for have finished; their outcomes are in the ledger.';
      builder.fields.state = 'discussing';
      builder.fields.resumeSpeakerId = null;
      builder.handTurnTo(resumer.agentId, why);
      return builder.build(
        snapshot.state === 'awaiting_sync_tasks' ? 'all sync tasks finished' : 'the awaited tasks finished',
      );
    }
  }
  return builder.build(`task ${task.taskId} is ${task.state}`);
}

function taskNotice(
  before: LedgerTask,
  task: LedgerTask,
  update: TaskUpdate,
): { type: MessageType; content: string } | null {
  switch (update.state) {
    case 'submitted':
      return null;
    case 'working':
      if (before.state === 'working') {
        return update.statusMessage
          ? { type: 'progress', content: notices.taskProgress(task, update.statusMessage) }
          : null;
      }
      return { type: 'progress', content: notices.taskWorking(task, update.statusMessage) };
    case 'input-required':
      return { type: 'progress', content: notices.taskInputRequired(task, update.statusMessage) };
    case 'completed':
      return { type: 'result', content: notices.taskCompleted(task, update.result) };
    case 'canceled':
      return { type: 'result', content: notices.taskCanceled(task, update.statusMessage) };
    default:
      return { type: 'result', content: notices.taskFailed(task, update.state, update.statusMessage ?? update.result) };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// helpers

/** Accumulates one transition, starting from the snapshot's fields. */
class TransitionBuilder {
  readonly fields: ConversationFields;
  readonly messages: MessageDraft[] = [];
  readonly ledger: LedgerTask[] = [];
  assignment: TaskAssignment | null = null;
  private grant: TurnGrant | null = null;
  private limitReached = false;

  constructor(
    private readonly snapshot: ConversationSnapshot,
    private readonly now: Date,
  ) {
    this.fields = {
      state: snapshot.state,
      currentSpeaker: snapshot.currentSpeaker,
      turn: snapshot.turn,
      maxTurns: snapshot.maxTurns,
      turnDeadline: snapshot.turnDeadline,
      awaitingTaskIds: [...snapshot.awaitingTaskIds],
      resumeSpeakerId: snapshot.resumeSpeakerId,
      conclusion: snapshot.conclusion,
    };
  }

  say(message: MessageDraft): void {
    this.messages.push(message);
  }

  /**
   * Grants the next turn to `speakerId`. Past the turn limit a discussing group becomes `concluding` and the turn
   * goes to the leader instead, who must conclude.
   */
  handTurnTo(speakerId: string, reason: string): void {
    const turn = this.fields.turn + 1;
    if (this.fields.state === 'discussing' && turn > this.fields.maxTurns) {
      const leader = memberById(this.snapshot, this.snapshot.leaderId)!;
      this.fields.state = 'concluding';
      this.limitReached = true;
      this.say(systemMessage('system', notices.turnLimit(this.fields.maxTurns, leader.name)));
      speakerId = leader.agentId;
      reason = `The turn limit (${this.fields.maxTurns}) is reached: conclude now with what the group has.`;
    }
    this.fields.turn = turn;
    this.fields.currentSpeaker = speakerId;
    this.fields.turnDeadline = deadlineFrom(this.now, this.snapshot.turnTimeoutSeconds);
    this.grant = { speakerId, reason, mustConclude: this.fields.state === 'concluding' };
  }

  /** The person is asked: no turn is granted and no deadline runs; their answer gives `askerId` the turn. */
  askUser(askerId: string): void {
    this.fields.currentSpeaker = USER_SPEAKER;
    this.fields.turnDeadline = null;
    this.fields.resumeSpeakerId = askerId;
  }

  /** Nobody speaks until `taskIds` are terminal; then `resumeSpeakerId` gets the turn. */
  waitFor(taskIds: string[], resumeSpeakerId: string): void {
    this.fields.currentSpeaker = null;
    this.fields.turnDeadline = null;
    this.fields.awaitingTaskIds = taskIds;
    this.fields.resumeSpeakerId = resumeSpeakerId;
  }

  endConversation(state: 'concluded' | 'failed', conclusion: string | null): void {
    this.fields.state = state;
    this.fields.conclusion = conclusion;
    this.fields.currentSpeaker = null;
    this.fields.turnDeadline = null;
    this.fields.awaitingTaskIds = [];
    this.fields.resumeSpeakerId = null;
  }

  build(reason: string): Transition {
    const changed = this.fields.state !== this.snapshot.state;
    return {
      outcome: 'transition',
      fields: this.fields,
      messages: this.messages,
      ledger: this.ledger,
      assignment: this.assignment,
      grant: this.grant,
      stateChange: changed
        ? {
            previousState: this.snapshot.state,
            reason: this.limitReached ? `turn limit reached (${this.fields.maxTurns} turns)` : reason,
          }
        : null,
    };
  }
}

/** Hands the turn to the named next speaker: a member, or the person. */
function passTo(builder: TransitionBuilder, speaker: ConversationMember, next: string, reason: string): void {
  if (next === USER_SPEAKER) builder.askUser(speaker.agentId);
  else builder.handTurnTo(next, reason);
}

function checkNextSpeaker(
  snapshot: ConversationSnapshot,
  speaker: ConversationMember,
  move: ProposedMove,
  options: { allowSelf: boolean },
): string | Rejection {
  const next = move.nextSpeaker;
  if (!next) {
    return reject(
      'INVALID_STATE',
      'NEXT_SPEAKER_REQUIRED',
      `A ${move.type} move must name nextSpeaker: a member id (${memberList(snapshot)}) or "${USER_SPEAKER}" to ask the person.`,
    );
  }
  if (next === USER_SPEAKER) return next;
  if (!memberById(snapshot, next)) {
    return reject(
      'INVALID_STATE',
      'UNKNOWN_NEXT_SPEAKER',
      `nextSpeaker ${next} is not a member of this group; name a member (${memberList(snapshot)}) or "${USER_SPEAKER}".`,
    );
  }
  if (next === speaker.agentId && !options.allowSelf) {
    return reject(
      'INVALID_STATE',
      'SELF_NEXT_SPEAKER',
      `A discussion hands the turn on: name another member (${memberList(snapshot, speaker.agentId)}) or "${USER_SPEAKER}", not yourself.`,
    );
  }
  return next;
}

function moveMessage(
  move: ProposedMove,
  speaker: ConversationMember,
  extra: { nextSpeaker?: string | null; tasks?: LedgerTask[]; awaitTaskIds?: string[] },
): MessageDraft {
  return {
    type: move.type,
    senderId: speaker.agentId,
    senderName: speaker.name,
    content: move.content,
    nextSpeaker: extra.nextSpeaker ?? null,
    tasks: extra.tasks ?? null,
    awaitTaskIds: extra.awaitTaskIds ?? null,
    usage: move.usage ?? null,
  };
}

function systemMessage(type: MessageType, content: string): MessageDraft {
  return { ...emptyMessage(), type, senderId: SYSTEM_SENDER, senderName: SYSTEM_SENDER, content };
}

function emptyMessage(): MessageDraft {
  return {
    type: 'system',
    senderId: SYSTEM_SENDER,
    senderName: SYSTEM_SENDER,
    content: '',
    nextSpeaker: null,
    tasks: null,
    awaitTaskIds: null,
    usage: null,
  };
}

function reject(code: Rejection['code'], rule: RejectionRule, reason: string): Rejection {
  return { outcome: 'rejected', code, rule, reason };
}

function deadlineFrom(now: Date, seconds: number): Date {
  return new Date(now.getTime() + seconds * 1000);
}

function memberById(snapshot: ConversationSnapshot, agentId: string): ConversationMember | undefined {
  return snapshot.members.find((member) => member.agentId === agentId);
}

function nameOf(snapshot: ConversationSnapshot, id: string | null): string {
  if (id === null) return 'nobody';
  if (id === USER_SPEAKER) return 'the person';
  return memberById(snapshot, id)?.name ?? id;
}

function memberList(snapshot: ConversationSnapshot, except?: string): string {
  const members = snapshot.members.filter((member) => member.agentId !== except);
  return members.map((member) => `${member.name} = ${member.agentId}`).join(', ') || 'none';
}

function nextInRoundRobin(snapshot: ConversationSnapshot, agentId: string): ConversationMember {
  const index = snapshot.members.findIndex((member) => member.agentId === agentId);
  return snapshot.members[(index + 1) % snapshot.members.length];
}

function describeTasks(snapshot: ConversationSnapshot, taskIds: string[]): string {
  return (
    taskIds
      .map((taskId) => {
        const task = snapshot.tasks.find((candidate) => candidate.taskId === taskId);
        return task ? `“${task.abstract}” (${task.assigneeName}, ${task.taskId})` : taskId;
      })
      .join(', ') || 'no tasks'
  );
}

function describeOpenTasks(snapshot: ConversationSnapshot): string {
  const open = snapshot.tasks.filter((task) => !isTerminalTaskState(task.state));
  return open.length === 0
    ? 'it has none open'
    : `open: ${describeTasks(
        snapshot,
        open.map((task) => task.taskId),
      )}`;
}

function boundOrNull(text: string | null): string | null {
  return text === null ? null : bound(text, LEDGER_RESULT_MAX);
}
