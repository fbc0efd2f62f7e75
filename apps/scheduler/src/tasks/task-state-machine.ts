import {
  isEndedGoalStatus,
  isOpenTaskState,
  isTerminalTaskState,
  type ErrorCode,
  type GoalStatus,
  type ReportTaskV1Request,
  type TaskBriefV1,
  type TaskState,
  type TeamMemberV1,
} from '@ioa/contracts';

/**
 * The task state machine — the single authority over a task's state (A2A states) and its delivery bookkeeping.
 *
 * Pure, like the goal state machine: a snapshot of the task (read while its goal's row is locked) and the input in;
 * a rejection with a reason the caller can act on, "unchanged", or the task's new fields — with the version and
 * timestamps that follow from them — and, when the scheduler itself stops work an assignee may still be doing, the
 * assignee to tell. `TaskChanges.apply` writes it (a `task` entry in the goal's log, `TaskUpdatedV1`, and
 * `TaskCanceledV1` to the assignee).
 *
 *   (assigned) ──▶ submitted ──delivered, the assignee reports──▶ working ⇄ input-required ──▶ completed | failed | rejected
 *   submitted ──undeliverable after the last attempt──▶ failed
 *   any open state ──deadline passed / assignee offline──▶ failed   (or, re-assigned: submitted, to a teammate)
 *   any open state ──goal ended──▶ canceled
 */

/** The fields of a task that its transitions change. */
export interface TaskFields {
  state: TaskState;
  result: string | null;
  statusMessage: string | null;
  brief: TaskBriefV1 | null;
  assigneeId: string;
  assigneeName: string;
  deadline: Date;
  /** Deliveries tried so far (to the current assignee). */
  attempts: number;
  /** When the next delivery is due; null once delivered, or once the task is finished. */
  nextDispatchAt: Date | null;
  childGoalId: string | null;
  version: number;
  updatedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

export interface TaskSnapshot extends TaskFields {
  id: string;
  createdAt: Date;
}

/** What a change may set; the version, `updatedAt` and the timestamps follow from it. */
export type TaskPatch = Partial<
  Pick<
    TaskFields,
    | 'state'
    | 'result'
    | 'statusMessage'
    | 'brief'
    | 'attempts'
    | 'nextDispatchAt'
    | 'assigneeId'
    | 'assigneeName'
    | 'deadline'
    | 'childGoalId'
    | 'startedAt'
  >
>;

export interface TaskTransition {
  outcome: 'transition';
  task: TaskFields;
  /**
   * Whether others see the change: a `task` entry in the goal's log and `TaskUpdatedV1` (with the version bumped).
   * False only for the scheduler's own delivery bookkeeping, which changes nothing an observer can see.
   */
  visible: boolean;
  /** The scheduler stopped work the assignee may still be doing: tell it (`TaskCanceledV1`) why. */
  tellAssignee: { agentId: string; reason: string } | null;
}

/** Stable identifiers of the rules a rejected input broke (also sent as `details.rule`). */
export type TaskRejectionRule = 'NOT_ASSIGNEE' | 'TASK_CANCELED' | 'TASK_FINISHED' | 'SUB_TEAM_TOO_DEEP';

export interface TaskRejection {
  outcome: 'rejected';
  /** FORBIDDEN when the caller has no say over this task at all; INVALID_STATE for what it can correct. */
  code: Extract<ErrorCode, 'INVALID_STATE' | 'FORBIDDEN'>;
  rule: TaskRejectionRule;
  reason: string;
}

export interface TaskUnchanged {
  outcome: 'unchanged';
  why: string;
}

export type TaskDecision = TaskTransition | TaskRejection | TaskUnchanged;

/** How deliveries are retried: attempts per assignee and the first backoff, doubled after each failure. */
export interface DeliveryPolicy {
  attempts: number;
  backoffMs: number;
}

// ---------------------------------------------------------------------------------------------------------------
// the one way a task changes

/**
 * Applies a patch: `working` sets `startedAt` once, a terminal state sets `completedAt` once and ends delivery, the
 * version goes up by one and `updatedAt` strictly increases — even for two changes within one millisecond, because
 * consumers drop updates older than theirs.
 */
export function changeTask(
  task: TaskSnapshot,
  patch: TaskPatch,
  now: Date,
  tellAssignee: string | null = null,
): TaskTransition {
  const next: TaskFields = { ...fieldsOf(task), ...patch };
  if (next.state === 'working' && next.startedAt === null) next.startedAt = now;
  if (isTerminalTaskState(next.state)) {
    next.completedAt ??= now;
    next.nextDispatchAt = null;
  }
  next.version = task.version + 1;
  next.updatedAt = new Date(Math.max(now.getTime(), task.updatedAt.getTime() + 1));
  return {
    outcome: 'transition',
    task: next,
    visible: true,
    tellAssignee: tellAssignee === null ? null : { agentId: task.assigneeId, reason: tellAssignee },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// assignment

/** A task as a move assigned it (chat minted its id), with the goal it belongs to. */
export interface TaskAssignment {
  id: string;
  goalId: string;
  groupId: string;
  /** The goal's own parent task, when the goal is a sub-team's. */
  parentTaskId: string | null;
  assignerId: string;
  assigneeId: string;
  assigneeName: string;
  mode: 'sync' | 'async';
  description: string;
  abstract: string;
  /** The chat message that assigned it. */
  messageId: string;
}

/** A new task: its changing fields and those fixed at assignment. */
export interface NewTask extends TaskSnapshot, Omit<TaskAssignment, 'assigneeId' | 'assigneeName'> {}

export interface TaskCreation {
  outcome: 'created';
  task: NewTask;
  /** The goal has ended (its group still talked while the close was pending): the task is canceled at once. */
  refusal: TaskTransition | null;
}

/**
 * A move assigned a task: `submitted`, due for delivery now, with the deadline counted from now. A task assigned
 * after its goal ended never runs: it is recorded, then canceled with the reason.
 */
export function assignTask(
  assignment: TaskAssignment,
  goalStatus: GoalStatus,
  deadlineSeconds: number,
  now: Date,
): TaskCreation {
  const task: NewTask = {
    ...assignment,
    brief: null,
    state: 'submitted',
    result: null,
    statusMessage: null,
    deadline: new Date(now.getTime() + deadlineSeconds * 1000),
    attempts: 0,
    nextDispatchAt: now,
    childGoalId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
  };
  const ended = isEndedGoalStatus(goalStatus);
  return { outcome: 'created', task, refusal: ended ? refuseForEndedGoal(task, goalStatus, now) : null };
}

// ---------------------------------------------------------------------------------------------------------------
// the assignee

/**
 * What an assignee's report does to its task:
 * - only the assignee reports (FORBIDDEN otherwise);
 * - an open task takes any reported state; `working` and `input-required` carry a progress note, `completed` the
 *   result, `failed` / `rejected` the reason; any report also means the task arrived, so delivery ends;
 * - the same report twice changes nothing (a retry after a lost reply), and neither does a terminal state reported
 *   again;
 * - a canceled task, or a finished one reported differently, is INVALID_STATE — which tells the agent to stop.
 */
export function reportTask(
  task: TaskSnapshot,
  report: Pick<ReportTaskV1Request, 'agentId' | 'state' | 'content'>,
  now: Date,
): TaskDecision {
  if (task.assigneeId !== report.agentId) {
    return reject(
      'FORBIDDEN',
      'NOT_ASSIGNEE',
      `Task ${task.id} is assigned to ${task.assigneeName}; only its assignee reports on it`,
    );
  }
  if (task.state === 'canceled') {
    return reject(
      'INVALID_STATE',
      'TASK_CANCELED',
      `Task ${task.id} was canceled${task.statusMessage ? ` (${task.statusMessage})` : ''}: stop working on it`,
    );
  }
  if (isTerminalTaskState(task.state)) {
    if (report.state === task.state) return { outcome: 'unchanged', why: `already ${task.state}` };
    return reject(
      'INVALID_STATE',
      'TASK_FINISHED',
      `Task ${task.id} is already ${task.state}; it cannot become ${report.state}`,
    );
  }
  const arrived = { nextDispatchAt: null };
  switch (report.state) {
    case 'working':
    case 'input-required': {
      const note = report.content ?? task.statusMessage;
      if (report.state === task.state && note === task.statusMessage) {
        return { outcome: 'unchanged', why: 'the same progress again' };
      }
      return changeTask(task, { ...arrived, state: report.state, statusMessage: note }, now);
    }
    case 'completed':
      return changeTask(task, { ...arrived, state: 'completed', result: report.content ?? '' }, now);
    case 'failed':
    case 'rejected':
      return changeTask(
        task,
        {
          ...arrived,
          state: report.state,
          statusMessage: report.content || `The assignee reported ${report.state} without a reason`,
        },
        now,
      );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// delivery

/** A delivery attempt begins: the brief and the attempt are recorded before the agent can see the task. */
export function startDelivery(task: TaskSnapshot, brief: TaskBriefV1, policy: DeliveryPolicy, now: Date): TaskDecision {
  if (task.state !== 'submitted') return { outcome: 'unchanged', why: `task is ${task.state}, no longer to deliver` };
  const attempt = task.attempts + 1;
  return changeTask(
    task,
    {
      brief: task.brief ?? brief,
      attempts: attempt,
      statusMessage: `Delivering to ${task.assigneeName} (attempt ${attempt} of ${policy.attempts})`,
    },
    now,
  );
}

/**
 * The assignee acknowledged the delivery: no further attempt is due. Bookkeeping only (the task stays `submitted`
 * until the assignee reports, and nobody else sees a change); a task the assignee reported on meanwhile has
 * nothing left to deliver already.
 */
export function deliveryAcknowledged(task: TaskSnapshot): TaskDecision {
  if (task.state !== 'submitted') return { outcome: 'unchanged', why: `the assignee reported ${task.state} already` };
  if (task.nextDispatchAt === null) return { outcome: 'unchanged', why: 'no delivery is due' };
  return {
    outcome: 'transition',
    task: { ...fieldsOf(task), nextDispatchAt: null },
    visible: false,
    tellAssignee: null,
  };
}

/**
 * A delivery was not acknowledged: retried with exponential backoff, and after the last attempt the task fails —
 * nothing waits for an agent that is not there. A task the agent reported on meanwhile did arrive: unchanged.
 */
export function deliveryFailed(task: TaskSnapshot, reason: string, policy: DeliveryPolicy, now: Date): TaskDecision {
  if (task.state !== 'submitted') return { outcome: 'unchanged', why: `the assignee reported ${task.state} meanwhile` };
  if (task.attempts >= policy.attempts) {
    return changeTask(
      task,
      {
        state: 'failed',
        statusMessage: `Could not deliver the task to ${task.assigneeName} after ${task.attempts} attempts: ${reason}`,
      },
      now,
    );
  }
  const backoffMs = policy.backoffMs * 2 ** (task.attempts - 1);
  return changeTask(
    task,
    {
      nextDispatchAt: new Date(now.getTime() + backoffMs),
      statusMessage: `Delivery attempt ${task.attempts} failed (${reason}); retrying in ${backoffMs} ms`,
    },
    now,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// time, presence and the goal

/** An open task past its deadline fails, and its assignee is told to stop. */
export function expireDeadline(task: TaskSnapshot, now: Date): TaskDecision {
  if (!isOpenTaskState(task.state)) return { outcome: 'unchanged', why: `task is ${task.state}` };
  if (task.deadline > now) return { outcome: 'unchanged', why: 'the deadline has not passed' };
  const seconds = Math.round((task.deadline.getTime() - task.createdAt.getTime()) / 1000);
  return changeTask(
    task,
    { state: 'failed', statusMessage: `No result within the deadline of ${seconds} s` },
    now,
    `The task passed its deadline of ${seconds} s`,
  );
}

/**
 * The assignee went offline before finishing: the task fails — or moves to `replacement`, an online teammate, with
 * a fresh deadline and deliveries starting over.
 */
export function assigneeWentOffline(
  task: TaskSnapshot,
  replacement: TeamMemberV1 | null,
  deadlineSeconds: number,
  now: Date,
): TaskDecision {
  if (!isOpenTaskState(task.state)) return { outcome: 'unchanged', why: `task is ${task.state}` };
  if (!replacement) {
    return changeTask(
      task,
      { state: 'failed', statusMessage: `${task.assigneeName} went offline before finishing the task` },
      now,
      'You went offline; the task was failed',
    );
  }
  return changeTask(
    task,
    {
      assigneeId: replacement.agentId,
      assigneeName: replacement.name,
      state: 'submitted',
      attempts: 0,
      startedAt: null,
      deadline: new Date(now.getTime() + deadlineSeconds * 1000),
      nextDispatchAt: now,
      statusMessage: `${task.assigneeName} went offline; re-assigned to ${replacement.name}`,
    },
    now,
    'You went offline; the task was re-assigned',
  );
}

/** The goal ended: its open tasks are canceled, and their assignees told why. */
export function cancelForEndedGoal(task: TaskSnapshot, reason: string, now: Date): TaskDecision {
  if (!isOpenTaskState(task.state)) return { outcome: 'unchanged', why: `task is ${task.state}` };
  return changeTask(task, { state: 'canceled', statusMessage: reason }, now, reason);
}

/** A task assigned after its goal ended (the group still talked while its close was pending) never runs. */
export function refuseForEndedGoal(task: TaskSnapshot, goalStatus: GoalStatus, now: Date): TaskTransition {
  return changeTask(task, { state: 'canceled', statusMessage: `The goal has ${goalStatus}` }, now);
}

// ---------------------------------------------------------------------------------------------------------------
// sub-teams

/**
 * A sub-team is to work for the task: refused when the task is finished, or when the sub-team would nest deeper
 * than the goal allows; otherwise the task links the sub-goal.
 */
export function attachSubGoal(
  task: TaskSnapshot,
  parent: { depth: number; maxDepth: number },
  childGoalId: string,
  now: Date,
): TaskDecision {
  if (isTerminalTaskState(task.state)) {
    return reject(
      'INVALID_STATE',
      'TASK_FINISHED',
      `Task ${task.id} is already ${task.state}; it cannot get a sub-team`,
    );
  }
  if (parent.depth + 1 > parent.maxDepth) {
    return reject(
      'INVALID_STATE',
      'SUB_TEAM_TOO_DEEP',
      `Sub-teams may nest at most ${parent.maxDepth} deep and this task's goal is at depth ${parent.depth}: do the task without a sub-team`,
    );
  }
  return changeTask(task, { childGoalId }, now);
}

/** The sub-team working for the task ended: the task completes with its conclusion, or fails with its reason. */
export function settleFromSubGoal(
  task: TaskSnapshot,
  child: { id: string; status: GoalStatus; conclusion: string | null; statusReason: string | null },
  now: Date,
): TaskDecision {
  if (!isOpenTaskState(task.state)) return { outcome: 'unchanged', why: `task is ${task.state}` };
  if (child.status === 'completed') {
    return changeTask(
      task,
      {
        state: 'completed',
        result: child.conclusion ?? '',
        statusMessage: `Concluded by a sub-team (goal ${child.id})`,
      },
      now,
    );
  }
  if (child.status !== 'failed' && child.status !== 'canceled') {
    return { outcome: 'unchanged', why: `the sub-team is ${child.status}` };
  }
  const what = child.status === 'canceled' ? "The sub-team's goal was canceled" : 'The sub-team failed';
  return changeTask(
    task,
    { state: 'failed', statusMessage: `${what}: ${child.statusReason ?? 'no reason given'}` },
    now,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// internals

function reject(code: TaskRejection['code'], rule: TaskRejectionRule, reason: string): TaskRejection {
  return { outcome: 'rejected', code, rule, reason };
}

function fieldsOf(task: TaskFields): TaskFields {
  return {
    state: task.state,
    result: task.result,
    statusMessage: task.statusMessage,
    brief: task.brief,
    assigneeId: task.assigneeId,
    assigneeName: task.assigneeName,
    deadline: task.deadline,
    attempts: task.attempts,
    nextDispatchAt: task.nextDispatchAt,
    childGoalId: task.childGoalId,
    version: task.version,
    updatedAt: task.updatedAt,
    startedAt: task.startedAt,
    completedAt: task.completedAt,
  };
}
