import {
  isActiveGoalStatus,
  isEndedGoalStatus,
  isFormingGoalStatus,
  USER_SPEAKER,
  SYSTEM_SENDER,
  type ErrorCode,
  type GoalStatus,
  type GroupState,
  type MessageType,
  type ModelUsageV1,
  type TeamMemberV1,
} from '@ioa/contracts';

/**
 * The goal state machine — the single authority over a goal's status and the fields that go with it.
 *
 * Pure: every function takes a snapshot of the goal (as read under its row lock) plus the input and the time, and
 * returns a rejection with a reason the caller can act on, "unchanged", or the complete transition: the goal's new
 * fields, the status entries to record (each one a `status` entry in the goal's event log and a
 * `GoalStatusChangedV1`), and what follows — open tasks to cancel (in the same transaction), a conclusion to force
 * and the follow-ups of an ended goal (after commit). `GoalChanges.apply` writes it; nothing here touches a
 * database, a clock or the network.
 *
 *   submitted ──formation claimed──▶ forming_team ──group opened──▶ working ⇄ input_required (the person is asked /
 *                                        │                            │          answers)
 *                                        └──no team / no group──▶ failed
 *   working | input_required ──group concluded──▶ completed ──the person follows up (new round)──▶ working
 *   any open status ──canceled──▶ canceled;   ──group failed──▶ failed
 *
 * Budgets count per round (from submission, and again from each follow-up that re-opens a completed goal). A goal
 * whose round ran out of tokens or seconds keeps its status but says why (`statusReason`) and has its group
 * concluded for it, once per round.
 */

/** The fields of a goal that its transitions change. */
export interface GoalFields {
  status: GoalStatus;
  statusReason: string | null;
  conclusion: string | null;
  groupId: string | null;
  /** The team, leader first. */
  team: TeamMemberV1[];
  /** The conversation waits for the person (a member asked them); an active goal is then `input_required`. */
  waitingForUser: boolean;
  /** Set when this round's budget forced a conclusion, so it is asked for once. */
  conclusionForcedAt: Date | null;
  /** Team formation's claim on the goal. */
  formationLeaseUntil: Date | null;
  /** When the group of an ended goal was closed; null while that is still to do. */
  groupClosedAt: Date | null;
  promptTokens: number;
  completionTokens: number;
  modelCalls: number;
  roundStartedAt: Date;
  roundStartTokens: number;
  updatedAt: Date;
  endedAt: Date | null;
}

/** A goal as the machine sees it: its changing fields and the ones fixed at submission. */
export interface GoalSnapshot extends GoalFields {
  id: string;
  budgetTokens: number | null;
  budgetSeconds: number | null;
}

/** A status entry to record: the goal as of that entry, and the status it had before. */
export interface StatusRecord {
  goal: GoalFields;
  previousStatus: GoalStatus;
}

export interface GoalTransition {
  outcome: 'transition';
  /** The goal's fields after the transition. */
  goal: GoalFields;
  /** Status entries to record, in order (a status change, or a new reason for the same status). */
  records: StatusRecord[];
  /** Cancel every open task of the goal with this reason, before the records (the goal ended). */
  cancelOpenTasks: string | null;
  /** Ask chat to conclude the group (a budget ran out); after commit. */
  forceConclusion: { groupId: string; reason: string } | null;
  /** The goal ended: close its group if needed, cancel abandoned sub-goals, settle its parent task; after commit. */
  followUpEnd: boolean;
}

/** Stable identifiers of the rules a rejected input broke (also sent as `details.rule`). */
export type GoalRejectionRule =
  'GOAL_ENDED' | 'GOAL_CLOSED' | 'TEAM_NOT_FORMED' | 'NOT_FORMING' | 'FORMATION_LEASED' | 'NOT_FORMING_TEAM';

export interface GoalRejection {
  outcome: 'rejected';
  code: Extract<ErrorCode, 'INVALID_STATE'>;
  rule: GoalRejectionRule;
  reason: string;
}

export interface GoalUnchanged {
  outcome: 'unchanged';
  why: string;
}

export type GoalDecision = GoalTransition | GoalRejection | GoalUnchanged;

/** How a goal ends. */
export type GoalOutcome =
  | { status: 'completed'; conclusion: string }
  | { status: 'failed' | 'canceled'; reason: string; groupAlreadyEnded?: boolean };

/** What a message of the goal's group tells the goal. */
export interface GroupMessage {
  groupId: string;
  type: MessageType;
  senderId: string;
  nextSpeaker: string | null;
}

/** What a group state change tells the goal. */
export interface GroupChange {
  id: string;
  state: GroupState;
  currentSpeaker: string | null;
  conclusion: string | null;
  /** Why the state changed, as chat reported it. */
  reason: string;
  /** The state the group left; only a change out of `concluded` is a re-opening. */
  previousState: GroupState;
}

// ---------------------------------------------------------------------------------------------------------------
// budgets

/**
 * Why the goal's current round has run out of budget, or null: tokens used since the round started, seconds since
 * it started.
 */
export function exhaustedBudget(
  goal: Pick<
    GoalSnapshot,
    'budgetTokens' | 'budgetSeconds' | 'promptTokens' | 'completionTokens' | 'roundStartTokens' | 'roundStartedAt'
  >,
  now: Date,
): string | null {
  if (goal.budgetTokens !== null) {
    const used = goal.promptTokens + goal.completionTokens - goal.roundStartTokens;
    if (used >= goal.budgetTokens) {
      return `Token budget reached (${used} of ${goal.budgetTokens} tokens): the team concludes with what it has`;
    }
  }
  if (goal.budgetSeconds !== null) {
    const elapsed = Math.floor((now.getTime() - goal.roundStartedAt.getTime()) / 1000);
    if (elapsed >= goal.budgetSeconds) {
      return `Time budget reached (${elapsed} of ${goal.budgetSeconds} seconds): the team concludes with what it has`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// submission

/** What a submission asks for (already validated against the contract). */
export interface GoalSubmission {
  goal: string;
  /** Agent names or ids for an explicit team; none (or an empty list) for autonomous team formation. */
  members: string[] | undefined;
  maxTurns: number;
  maxDepth: number;
  budget: { tokens?: number; seconds?: number } | undefined;
  idempotencyKey: string | null;
  /** The submitting account (`Ioa-Principal`); null when a platform service submitted it. */
  accountId: string | null;
  /** A sub-team's goal: the goal of the task it works for (the task has accepted it: `attachSubGoal`). */
  parent: { goalId: string; taskId: string; depth: number; maxDepth: number; accountId: string | null } | null;
}

/** A new goal: the fields its transitions change and those fixed at submission. */
export interface NewGoal extends GoalSnapshot {
  goal: string;
  idempotencyKey: string | null;
  accountId: string | null;
  requestedMembers: string[] | null;
  maxTurns: number;
  depth: number;
  maxDepth: number;
  parentTaskId: string | null;
  parentGoalId: string | null;
  lastEventSeq: number;
  createdAt: Date;
}

export interface GoalCreation {
  outcome: 'created';
  goal: NewGoal;
  /** Its first status entry: `submitted`, from nothing. */
  records: Array<{ goal: GoalFields; previousStatus: null }>;
}

/**
 * A goal is submitted: `submitted`, its first round starting now, with the budgets asked for. Named members are
 * trimmed and listed once each (the first leads). A sub-team's goal sits one level below its parent's, keeps the
 * parent's nesting limit whatever it asked for, and belongs to the parent's account. Team formation starts after
 * commit.
 */
export function submitGoal(id: string, submission: GoalSubmission, now: Date): GoalCreation {
  const members = submission.members?.length ? [...new Set(submission.members.map((member) => member.trim()))] : null;
  const { parent } = submission;
  const goal: NewGoal = {
    id,
    goal: submission.goal,
    idempotencyKey: submission.idempotencyKey,
    // A sub-team works for whoever the parent goal works for.
    accountId: parent ? parent.accountId : submission.accountId,
    requestedMembers: members,
    maxTurns: submission.maxTurns,
    depth: parent ? parent.depth + 1 : 0,
    maxDepth: parent ? parent.maxDepth : submission.maxDepth,
    parentTaskId: parent?.taskId ?? null,
    parentGoalId: parent?.goalId ?? null,
    budgetTokens: submission.budget?.tokens ?? null,
    budgetSeconds: submission.budget?.seconds ?? null,
    status: 'submitted',
    statusReason: null,
    conclusion: null,
    groupId: null,
    team: [],
    waitingForUser: false,
    conclusionForcedAt: null,
    formationLeaseUntil: null,
    groupClosedAt: null,
    promptTokens: 0,
    completionTokens: 0,
    modelCalls: 0,
    roundStartedAt: now,
    roundStartTokens: 0,
    lastEventSeq: 0,
    createdAt: now,
    updatedAt: now,
    endedAt: null,
  };
  return { outcome: 'created', goal, records: [{ goal: fieldsOf(goal), previousStatus: null }] };
}

// ---------------------------------------------------------------------------------------------------------------
// team formation

/** Team formation takes the goal: `forming_team` with a fresh lease, unless another formation holds a live one. */
export function claimFormation(goal: GoalSnapshot, now: Date, leaseUntil: Date): GoalDecision {
  if (!isFormingGoalStatus(goal.status)) {
    return reject('NOT_FORMING', `Goal ${goal.id} is ${goal.status}; its team is not being formed`);
  }
  if (goal.formationLeaseUntil !== null && goal.formationLeaseUntil > now) {
    return reject('FORMATION_LEASED', `Another formation of goal ${goal.id} holds its lease`);
  }
  const draft = new Draft(goal, now);
  draft.goal.formationLeaseUntil = leaseUntil;
  if (goal.status === 'submitted') draft.setStatus({ status: 'forming_team' });
  return draft.transition();
}

/**
 * Team formation extends its lease before each step; a goal that left `forming_team` meanwhile (canceled, or ended
 * by its group) is no longer its to form, which stops the formation.
 */
export function renewFormationLease(goal: GoalSnapshot, now: Date, leaseUntil: Date): GoalDecision {
  if (goal.status !== 'forming_team') return notFormingTeam(goal);
  const draft = new Draft(goal, now);
  draft.goal.formationLeaseUntil = leaseUntil;
  return draft.transition();
}

/** The team was chosen: recorded with the model usage it cost, while the goal is still forming its team. */
export function recordTeam(goal: GoalSnapshot, team: TeamMemberV1[], usage: ModelUsageV1, now: Date): GoalDecision {
  if (goal.status !== 'forming_team') return notFormingTeam(goal);
  const draft = new Draft(goal, now);
  draft.goal.team = team;
  draft.addUsage(usage);
  return draft.transition();
}

/**
 * The group chat opened: the team is at work (`working`, or at once `input_required` when the leader asked the
 * person already). A goal that left `forming_team` meanwhile — canceled, or concluded by a fast team whose events
 * overtook the reply — only learns its group, and its end's follow-ups run (which close a canceled goal's group).
 */
export function openedGroup(goal: GoalSnapshot, groupId: string, now: Date): GoalDecision {
  const draft = new Draft(goal, now);
  draft.goal.groupId = groupId;
  draft.goal.formationLeaseUntil = null;
  if (goal.status !== 'forming_team') {
    draft.followUpEnd = true;
    return draft.transition();
  }
  draft.setStatus({ status: 'working' });
  draft.syncConversationStatus();
  draft.checkBudget();
  return draft.transition();
}

/** No team could be formed, or its group could not be opened: the goal fails with that reason. */
export function formationFailed(goal: GoalSnapshot, reason: string, usage: ModelUsageV1, now: Date): GoalDecision {
  if (goal.status !== 'forming_team') return { outcome: 'unchanged', why: `goal is ${goal.status}` };
  const draft = new Draft(goal, now);
  draft.addUsage(usage);
  draft.goal.formationLeaseUntil = null;
  draft.end({ status: 'failed', reason });
  return draft.transition();
}

// ---------------------------------------------------------------------------------------------------------------
// people

/** Canceled by the submitter: open tasks canceled, group closed. Canceling a canceled goal changes nothing. */
export function cancelGoal(goal: GoalSnapshot, reason: string, now: Date): GoalDecision {
  if (goal.status === 'canceled') return { outcome: 'unchanged', why: 'already canceled' };
  if (isEndedGoalStatus(goal.status)) {
    return reject('GOAL_ENDED', `Goal ${goal.id} has already ${goal.status}; there is nothing to cancel`);
  }
  const draft = new Draft(goal, now);
  draft.goal.formationLeaseUntil = null;
  draft.end({ status: 'canceled', reason });
  return draft.transition();
}

/**
 * A sub-goal whose parent task was given up is canceled, unless it has ended already (then nothing happens: it is
 * a sweep, not a request).
 */
export function abandonSubGoal(goal: GoalSnapshot, reason: string, now: Date): GoalDecision {
  if (isEndedGoalStatus(goal.status)) return { outcome: 'unchanged', why: `already ${goal.status}` };
  const draft = new Draft(goal, now);
  draft.end({ status: 'canceled', reason });
  return draft.transition();
}

/** Whether a person may post to the goal's conversation now, and to which group; else the reason. */
export function checkPostMessage(goal: GoalSnapshot): GoalRejection | { outcome: 'allowed'; groupId: string } {
  if (goal.status === 'failed' || goal.status === 'canceled') {
    return reject('GOAL_CLOSED', `Goal ${goal.id} has ${goal.status}; submit a new goal instead`);
  }
  if (isFormingGoalStatus(goal.status) || goal.groupId === null) {
    return reject('TEAM_NOT_FORMED', `Goal ${goal.id} is still forming its team; post again once it is working`);
  }
  return { outcome: 'allowed', groupId: goal.groupId };
}

/**
 * A person spoke in the conversation (an answer to the team's question, or a follow-up that re-opens a completed
 * goal with a new round and fresh budgets): the team is at work again.
 */
export function personPosted(goal: GoalSnapshot, now: Date): GoalDecision {
  const draft = new Draft(goal, now);
  draft.resume();
  return draft.transition();
}

// ---------------------------------------------------------------------------------------------------------------
// the group chat

/** A message of the goal's group: its usage counts, and who speaks next says whether the person is waited for. */
export function messagePosted(
  goal: GoalSnapshot,
  message: GroupMessage,
  usage: ModelUsageV1 | undefined,
  now: Date,
): GoalDecision {
  const draft = new Draft(goal, now);
  // The group's first message can overtake CreateGroupV1's reply: remember the group, so that a formation resumed
  // after a crash finds it instead of opening a second one.
  if (goal.status === 'forming_team' && goal.groupId === null) draft.goal.groupId = message.groupId;
  draft.addUsage(usage);
  if (message.type === 'user') {
    draft.resume();
  } else {
    // A member asking the person makes the conversation wait for them; any member speaking again ends that.
    if (message.nextSpeaker === USER_SPEAKER) draft.goal.waitingForUser = true;
    else if (message.senderId !== SYSTEM_SENDER) draft.goal.waitingForUser = false;
    draft.syncConversationStatus();
  }
  draft.checkBudget();
  return draft.transition();
}

/** The group's state drives the goal's: `concluded` completes it, `failed` fails it, a re-opened group resumes it. */
export function groupStateChanged(goal: GoalSnapshot, group: GroupChange, now: Date): GoalDecision {
  // An event naming the goal but another group than its own says nothing true about it (a forged or stray event).
  if (goal.groupId !== null && goal.groupId !== group.id) {
    return { outcome: 'unchanged', why: `the event is about group ${group.id}, not the goal's group ${goal.groupId}` };
  }
  const draft = new Draft(goal, now);
  // Chat may report on the group before the scheduler has recorded it (an agent that concludes at once).
  const forming = goal.status === 'forming_team';
  if (forming && goal.groupId === null) draft.goal.groupId = group.id;
  const active = isActiveGoalStatus(goal.status) || forming;
  switch (group.state) {
    case 'concluded':
      if (!active) return { outcome: 'unchanged', why: `the group concluded, but the goal is ${goal.status}` };
      draft.goal.formationLeaseUntil = null;
      draft.end({ status: 'completed', conclusion: group.conclusion ?? '' });
      return draft.transition();
    case 'failed':
      if (isEndedGoalStatus(goal.status)) return { outcome: 'unchanged', why: `the goal has ${goal.status}` };
      draft.goal.formationLeaseUntil = null;
      draft.end({ status: 'failed', reason: `The group chat ended: ${group.reason}`, groupAlreadyEnded: true });
      return draft.transition();
    case 'concluding':
      // The turn limit (or a forced conclusion) cut the discussion short: say so, unless a budget already did.
      if (active && goal.statusReason === null) {
        draft.goal.statusReason = group.reason;
        draft.recordStatus();
      }
      return draft.transition();
    case 'discussing':
    case 'awaiting_sync_tasks':
    case 'paused':
      if (goal.status === 'completed') {
        // Events of one group can reach the scheduler out of order (replicas share its consumer): a change that
        // happened before the conclusion must not bring the goal back; only the follow-up's re-opening does.
        if (group.previousState !== 'concluded') {
          return {
            outcome: 'unchanged',
            why: `a ${group.previousState} → ${group.state} change from before the conclusion`,
          };
        }
        draft.goal.waitingForUser = group.currentSpeaker === USER_SPEAKER;
        draft.resume();
        return draft.transition();
      }
      draft.goal.waitingForUser = group.currentSpeaker === USER_SPEAKER;
      draft.syncConversationStatus();
      return draft.transition();
  }
}

/** Chat confirmed the group of a failed or canceled goal closed (or had nothing left to close): done, once. */
export function groupClosed(goal: GoalSnapshot, now: Date): GoalDecision {
  if (goal.groupClosedAt !== null) return { outcome: 'unchanged', why: 'the group was closed already' };
  const draft = new Draft(goal, now);
  draft.goal.groupClosedAt = now;
  return draft.transition();
}

/**
 * Chat could not be asked to conclude the group of a goal out of budget (unreachable, or a retryable error): the
 * mark is cleared, so the sweeper's budget check asks again.
 */
export function forcedConclusionUnsent(goal: GoalSnapshot, now: Date): GoalDecision {
  if (goal.conclusionForcedAt === null) return { outcome: 'unchanged', why: 'no forced conclusion is pending' };
  const draft = new Draft(goal, now);
  draft.goal.conclusionForcedAt = null;
  return draft.transition();
}

// ---------------------------------------------------------------------------------------------------------------
// usage and time

/** Model usage spent for the goal (a task's report, a brief, a sub-team's total): counted, then the budget checked. */
export function usageSpent(goal: GoalSnapshot, usage: ModelUsageV1 | undefined, now: Date): GoalDecision {
  if (!usage) return checkBudget(goal, now);
  const draft = new Draft(goal, now);
  draft.addUsage(usage);
  draft.checkBudget();
  return draft.transition();
}

/** The sweeper's check: time budgets run out without anything happening. */
export function checkBudget(goal: GoalSnapshot, now: Date): GoalDecision {
  const draft = new Draft(goal, now);
  if (!draft.checkBudget()) return { outcome: 'unchanged', why: 'within budget, or a conclusion was forced already' };
  return draft.transition();
}

// ---------------------------------------------------------------------------------------------------------------
// internals

function reject(rule: GoalRejectionRule, reason: string): GoalRejection {
  return { outcome: 'rejected', code: 'INVALID_STATE', rule, reason };
}

function notFormingTeam(goal: GoalSnapshot): GoalRejection {
  return reject('NOT_FORMING_TEAM', `Goal ${goal.id} is ${goal.status}; it no longer forms its team`);
}

function fieldsOf(goal: GoalFields): GoalFields {
  return {
    status: goal.status,
    statusReason: goal.statusReason,
    conclusion: goal.conclusion,
    groupId: goal.groupId,
    team: goal.team,
    waitingForUser: goal.waitingForUser,
    conclusionForcedAt: goal.conclusionForcedAt,
    formationLeaseUntil: goal.formationLeaseUntil,
    groupClosedAt: goal.groupClosedAt,
    promptTokens: goal.promptTokens,
    completionTokens: goal.completionTokens,
    modelCalls: goal.modelCalls,
    roundStartedAt: goal.roundStartedAt,
    roundStartTokens: goal.roundStartTokens,
    updatedAt: goal.updatedAt,
    endedAt: goal.endedAt,
  };
}

/** A transition being built: the rules below are the steps every decision is made of. */
class Draft {
  readonly goal: GoalFields;
  private readonly records: StatusRecord[] = [];
  private cancelOpenTasks: string | null = null;
  private forceConclusion: GoalTransition['forceConclusion'] = null;
  followUpEnd = false;

  constructor(
    private readonly snapshot: GoalSnapshot,
    private readonly now: Date,
  ) {
    this.goal = fieldsOf(snapshot);
    this.goal.updatedAt = now;
  }

  transition(): GoalTransition {
    return {
      outcome: 'transition',
      goal: this.goal,
      records: this.records,
      cancelOpenTasks: this.cancelOpenTasks,
      forceConclusion: this.forceConclusion,
      followUpEnd: this.followUpEnd,
    };
  }

  setStatus(change: { status: GoalStatus; statusReason?: string | null; conclusion?: string | null }): void {
    const previousStatus = this.goal.status;
    this.goal.status = change.status;
    if (change.statusReason !== undefined) this.goal.statusReason = change.statusReason;
    if (change.conclusion !== undefined) this.goal.conclusion = change.conclusion;
    this.goal.endedAt = isEndedGoalStatus(change.status) ? (this.goal.endedAt ?? this.now) : null;
    this.records.push({ goal: { ...this.goal }, previousStatus });
  }

  /** Records the current status again (its reason changed). */
  recordStatus(): void {
    this.records.push({ goal: { ...this.goal }, previousStatus: this.goal.status });
  }

  addUsage(usage: ModelUsageV1 | undefined): void {
    if (!usage) return;
    this.goal.promptTokens += usage.promptTokens ?? 0;
    this.goal.completionTokens += usage.completionTokens ?? 0;
    this.goal.modelCalls += usage.modelCalls ?? 0;
  }

  /** How a goal ends: its open tasks are canceled, and the follow-ups of an end run after commit. */
  end(outcome: GoalOutcome): void {
    if (outcome.status === 'completed') {
      this.cancelOpenTasks = 'The group concluded; this task is no longer needed';
      // A budget or turn-limit reason stays: it says why the conclusion came early.
      this.setStatus({ status: 'completed', conclusion: outcome.conclusion });
    } else {
      const verb = outcome.status === 'canceled' ? 'was canceled' : 'failed';
      this.cancelOpenTasks = `The goal ${verb}: ${outcome.reason}`;
      if (outcome.groupAlreadyEnded) this.goal.groupClosedAt = this.now;
      this.setStatus({ status: outcome.status, statusReason: outcome.reason });
    }
    this.followUpEnd = true;
  }

  /** The team is at work again after a person spoke; a completed goal starts a new round with fresh budgets. */
  resume(): void {
    this.goal.waitingForUser = false;
    if (this.goal.status === 'completed') {
      this.goal.roundStartedAt = this.now;
      this.goal.roundStartTokens = this.goal.promptTokens + this.goal.completionTokens;
      this.goal.conclusionForcedAt = null;
      this.setStatus({ status: 'working', statusReason: null });
    } else if (this.goal.status === 'input_required') {
      this.setStatus({ status: 'working' });
    }
  }

  /** An active goal is `input_required` exactly while its conversation waits for the person. */
  syncConversationStatus(): void {
    if (this.goal.status === 'working' && this.goal.waitingForUser) this.setStatus({ status: 'input_required' });
    else if (this.goal.status === 'input_required' && !this.goal.waitingForUser) this.setStatus({ status: 'working' });
  }

  /** When this round's budget ran out: says why and forces a conclusion, once per round. Returns whether it did. */
  checkBudget(): boolean {
    const { goal } = this;
    if (!isActiveGoalStatus(goal.status) || goal.conclusionForcedAt !== null || goal.groupId === null) return false;
    const reason = exhaustedBudget({ ...this.snapshot, ...goal }, this.now);
    if (reason === null) return false;
    goal.conclusionForcedAt = this.now;
    goal.statusReason = reason;
    this.recordStatus();
    this.forceConclusion = { groupId: goal.groupId, reason };
    return true;
  }
}
