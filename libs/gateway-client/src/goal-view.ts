import {
  SYSTEM_SENDER,
  USER_SPEAKER,
  type ChatMessageV1,
  type GoalEventV1,
  type GoalStatus,
  type GoalUsageV1,
  type GoalV1,
  type GroupState,
  type GroupV1,
  type TaskV1,
  type TeamMemberV1,
} from '@ioa/contracts';

/**
 * How the demo shows a goal in a terminal: one line per event of `GET /v1/goals/:id/events` (time since submission,
 * seq, kind, then who did what), indented detail lines where an event carries a list (team members, drafted tasks),
 * and a summary of the finished goal (tasks, conclusion, usage). Pure functions of the events: no I/O here.
 */

/** ANSI colours, or nothing at all (output to a file or a pipe, or `NO_COLOR`). */
export interface Paint {
  dim: (text: string) => string;
  bold: (text: string) => string;
  red: (text: string) => string;
  green: (text: string) => string;
  yellow: (text: string) => string;
  blue: (text: string) => string;
  magenta: (text: string) => string;
  cyan: (text: string) => string;
}

export function paint(enabled: boolean): Paint {
  const code = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    dim: code(2, 22),
    bold: code(1, 22),
    red: code(31, 39),
    green: code(32, 39),
    yellow: code(33, 39),
    blue: code(34, 39),
    magenta: code(35, 39),
    cyan: code(36, 39),
  };
}

/** The first 8 characters of an id: enough to tell a goal's tasks apart on screen. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** One line of at most `max` characters: whitespace collapsed, an ellipsis where it was cut. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** What the scheduler records in a `status` event (a summary of the goal at that moment). */
export interface StatusData {
  status: GoalStatus;
  previousStatus: GoalStatus | null;
  statusReason: string | null;
}

/** A `team` event: the members and why each was chosen. */
export interface TeamData {
  members: TeamMemberV1[];
  leaderId: string;
}

/** A `group` event: the group chat's state after a change. */
export interface GroupData {
  group: GroupV1;
  previousState: GroupState;
  reason: string;
}

const TASK_STATE_WIDTH = 'input-required'.length;
const KIND_WIDTH = 'message'.length;
const TIME_WIDTH = '+100.0s'.length;
/** Moves that hand out tasks: their task list is worth a line per task (notices only repeat the task they are about). */
const ASSIGNING_MOVES: ReadonlySet<string> = new Set(['sync_task_assign', 'async_task_assign']);

export interface GoalEventViewOptions {
  paint: Paint;
  /** When the goal was submitted (epoch ms): each line shows the time since. */
  startedAt: number;
  /** Longest text excerpt on a line. */
  excerpt: number;
}

/** Turns a goal's events into terminal lines; remembers names (ids → agents) and which task briefs were shown. */
export class GoalEventView {
  private readonly names = new Map<string, string>([
    [USER_SPEAKER, 'the person'],
    [SYSTEM_SENDER, 'system'],
  ]);
  private readonly briefsShown = new Set<string>();

  constructor(private readonly options: GoalEventViewOptions) {}

  /** Lines for one event: the event's own line first, then indented details. */
  render(event: GoalEventV1): string[] {
    const { paint: p } = this.options;
    const seconds = Math.max(0, (Date.parse(event.at) - this.options.startedAt) / 1000);
    const head = `${p.dim(`${`+${seconds.toFixed(1)}s`.padStart(TIME_WIDTH)} #${String(event.seq).padEnd(3)}`)} `;
    const kind = (label: string, colour: (text: string) => string) => colour(label.padEnd(KIND_WIDTH));
    const [line, ...details] = this.describe(event);
    const indent = ' '.repeat(TIME_WIDTH + ' #'.length + 3 + 1 + KIND_WIDTH + 2);
    const colour = {
      status: p.bold,
      team: p.magenta,
      message: p.cyan,
      task: p.green,
      group: p.blue,
    }[event.type];
    return [`${head}${kind(event.type, colour)}  ${line}`, ...details.map((detail) => `${indent}${detail}`)];
  }

  private describe(event: GoalEventV1): string[] {
    switch (event.type) {
      case 'status':
        return this.status(event.data as unknown as StatusData);
      case 'team':
        return this.team(event.data as unknown as TeamData);
      case 'message':
        return this.message(event.data as unknown as ChatMessageV1);
      case 'task':
        return this.task(event.data as unknown as TaskV1);
      case 'group':
        return this.group(event.data as unknown as GroupData);
    }
  }

  private status(data: StatusData): string[] {
    const { paint: p } = this.options;
    const status = p.bold(data.status);
    const line = data.previousStatus ? `${data.previousStatus} → ${status}` : status;
    return [data.statusReason ? `${line}  ${p.dim(`(${oneLine(data.statusReason, this.options.excerpt)})`)}` : line];
  }

  private team(data: TeamData): string[] {
    const { paint: p } = this.options;
    for (const member of data.members) this.names.set(member.agentId, member.name);
    const names = data.members.map((member) =>
      member.agentId === data.leaderId ? `${p.magenta(member.name)} (leads)` : p.magenta(member.name),
    );
    return [
      `${data.members.length} member(s): ${names.join(', ')}`,
      ...data.members.map((member) => `${member.name}: ${p.dim(oneLine(member.reason, this.options.excerpt))}`),
    ];
  }

  private message(message: ChatMessageV1): string[] {
    const { paint: p, excerpt } = this.options;
    this.names.set(message.senderId, message.senderName);
    const next = message.nextSpeaker ? ` → ${this.nameOf(message.nextSpeaker)}` : '';
    const sender = message.senderId === SYSTEM_SENDER ? p.dim(message.senderName) : p.cyan(message.senderName);
    const line = `${sender} ${p.yellow(`[${message.type}]`)}${next}  ${oneLine(message.content, excerpt)}`;
    const assigned = ASSIGNING_MOVES.has(message.type) ? (message.tasks ?? []) : [];
    const details = assigned.map(
      (task) =>
        `task ${shortId(task.taskId)}  ${task.mode.padEnd(5)} → ${this.nameOf(task.assigneeId)}: ` +
        oneLine(task.abstract, excerpt),
    );
    if (message.awaitTaskIds?.length) {
      details.push(`waits for ${message.awaitTaskIds.map(shortId).join(', ')}`);
    }
    return [line, ...details];
  }

  private task(task: TaskV1): string[] {
    const { paint: p, excerpt } = this.options;
    this.names.set(task.assigneeId, task.assigneeName);
    const stateColour =
      task.state === 'completed'
        ? p.green
        : task.state === 'failed' || task.state === 'rejected' || task.state === 'canceled'
          ? p.red
          : p.yellow;
    const note =
      task.state === 'completed' && task.result !== null
        ? task.result
        : (task.statusMessage ??
          (task.state === 'submitted' && task.brief === null ? 'the brief is being written' : ''));
    const line =
      `${shortId(task.id)}  ${task.assigneeName.padEnd(14)} ${task.mode.padEnd(5)} ` +
      `${stateColour(task.state.padEnd(TASK_STATE_WIDTH))}${note ? `  ${oneLine(note, excerpt)}` : ''}`;
    if (task.brief && !this.briefsShown.has(task.id)) {
      this.briefsShown.add(task.id);
      return [line, `brief: ${p.dim(oneLine(task.brief.abstract, excerpt))}`];
    }
    return [line];
  }

  private group(data: GroupData): string[] {
    const { paint: p, excerpt } = this.options;
    const group = data.group;
    const state = p.blue(group.state);
    const transition =
      data.previousState && data.previousState !== group.state ? `${data.previousState} → ${state}` : state;
    const holder =
      group.currentSpeaker !== null
        ? `turn ${group.turn}/${group.maxTurns}, ${this.nameOf(group.currentSpeaker)} speaks`
        : group.awaitingTaskIds.length > 0
          ? `waiting for ${group.awaitingTaskIds.map(shortId).join(', ')}`
          : `turn ${group.turn}/${group.maxTurns}`;
    return [`${transition}  ${holder}  ${p.dim(`(${oneLine(data.reason, excerpt)})`)}`];
  }

  private nameOf(id: string): string {
    return this.names.get(id) ?? shortId(id);
  }
}

/** The finished goal: its tasks, the conclusion in full, and what it cost. */
export function summarizeGoal(
  goal: GoalV1,
  options: { paint: Paint; excerpt: number; offlineModel: boolean },
): string[] {
  const { paint: p, excerpt } = options;
  const lines: string[] = [];
  lines.push(p.bold(`Tasks (${goal.tasks.length}):`));
  for (const task of goal.tasks) {
    const took =
      task.startedAt && task.completedAt
        ? `${((Date.parse(task.completedAt) - Date.parse(task.startedAt)) / 1000).toFixed(1)} s`
        : '';
    const outcome = task.state === 'completed' ? (task.result ?? '') : (task.statusMessage ?? '');
    lines.push(
      `  ${shortId(task.id)}  ${task.assigneeName.padEnd(14)} ${task.mode.padEnd(5)} ` +
        `${task.state.padEnd(TASK_STATE_WIDTH)} ${took.padStart(6)}  ${oneLine(outcome, excerpt)}`,
    );
  }
  lines.push('');
  lines.push(p.bold(`Conclusion (goal ${goal.status}${goal.statusReason ? `: ${goal.statusReason}` : ''}):`));
  for (const line of (goal.conclusion ?? '(none)').split('\n')) lines.push(line ? `  ${line}` : '');
  lines.push('');
  lines.push(p.bold('Usage:'));
  lines.push(`  ${usageLine(goal.usage)}`);
  if (options.offlineModel) {
    lines.push(
      `  ${p.dim('(the deterministic offline model: no endpoint configured, tokens estimated as words / 0.75)')}`,
    );
  }
  return lines;
}

export function usageLine(usage: GoalUsageV1): string {
  const tokens = usage.promptTokens + usage.completionTokens;
  const number = (value: number) => value.toLocaleString('en-US');
  return (
    `${number(usage.modelCalls)} model calls, ${number(tokens)} tokens ` +
    `(${number(usage.promptTokens)} prompt + ${number(usage.completionTokens)} completion), ` +
    `${number(usage.seconds)} s`
  );
}
