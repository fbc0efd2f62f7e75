import 'reflect-metadata';
import { SYSTEM_SENDER, USER_SPEAKER, type GoalStatus, type ModelUsageV1 } from '@ioa/contracts';
import {
  abandonSubGoal,
  cancelGoal,
  checkBudget,
  checkPostMessage,
  claimFormation,
  exhaustedBudget,
  forcedConclusionUnsent,
  formationFailed,
  groupClosed,
  groupStateChanged,
  messagePosted,
  openedGroup,
  personPosted,
  recordTeam,
  renewFormationLease,
  submitGoal,
  usageSpent,
  type GoalDecision,
  type GoalRejection,
  type GoalSnapshot,
  type GoalTransition,
  type GroupChange,
  type GroupMessage,
  type GoalSubmission,
} from './goal-state-machine.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const STARTED = new Date('2026-01-01T11:59:00.000Z');
const GROUP = '10000000-0000-4000-8000-000000000001';
const LEADER = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';

function newGoal(overrides: Partial<GoalSnapshot> = {}): GoalSnapshot {
  return {
    id: '20000000-0000-4000-8000-000000000001',
    status: 'working',
    statusReason: null,
    conclusion: null,
    groupId: GROUP,
    team: [{ agentId: LEADER, name: 'lead', reason: 'Named by the submitter; leads the team' }],
    waitingForUser: false,
    conclusionForcedAt: null,
    formationLeaseUntil: null,
    groupClosedAt: null,
    promptTokens: 0,
    completionTokens: 0,
    modelCalls: 0,
    roundStartedAt: STARTED,
    roundStartTokens: 0,
    updatedAt: STARTED,
    endedAt: null,
    budgetTokens: null,
    budgetSeconds: null,
    ...overrides,
  };
}

function forming(overrides: Partial<GoalSnapshot> = {}): GoalSnapshot {
  return newGoal({ status: 'forming_team', groupId: null, team: [], ...overrides });
}

function newMessage(overrides: Partial<GroupMessage> = {}): GroupMessage {
  return { groupId: GROUP, type: 'discussion', senderId: LEADER, nextSpeaker: BOB, ...overrides };
}

function newGroup(overrides: Partial<GroupChange> = {}): GroupChange {
  return {
    id: GROUP,
    state: 'discussing',
    currentSpeaker: LEADER,
    conclusion: null,
    reason: 'moved on',
    previousState: 'paused',
    ...overrides,
  };
}

function newUsage(overrides: Partial<ModelUsageV1> = {}): ModelUsageV1 {
  return { promptTokens: 0, completionTokens: 0, modelCalls: 0, ...overrides };
}

function expectTransition(decision: GoalDecision): GoalTransition {
  if (decision.outcome !== 'transition') throw new Error(`expected a transition, got ${JSON.stringify(decision)}`);
  return decision;
}

function expectRejection(
  decision: GoalDecision | ReturnType<typeof checkPostMessage>,
  rule: GoalRejection['rule'],
): GoalRejection {
  expect(decision).toMatchObject({ outcome: 'rejected', code: 'INVALID_STATE', rule });
  expect((decision as GoalRejection).reason.length).toBeGreaterThan(10);
  return decision as GoalRejection;
}

/** The statuses recorded, in order, as `previous→next`. */
function recorded(transition: GoalTransition): string[] {
  return transition.records.map((record) => `${record.previousStatus}→${record.goal.status}`);
}

function newSubmission(overrides: Partial<GoalSubmission> = {}): GoalSubmission {
  return {
    goal: 'Write a haiku',
    members: undefined,
    maxTurns: 12,
    maxDepth: 1,
    budget: undefined,
    idempotencyKey: null,
    accountId: 'acct-1',
    parent: null,
    ...overrides,
  };
}

describe('submission', () => {
  const id = '20000000-0000-4000-8000-000000000009';

  it('creates a submitted goal whose first round starts now, and records that status from nothing', () => {
    const creation = submitGoal(id, newSubmission({ budget: { tokens: 500 }, idempotencyKey: 'k-1' }), NOW);
    expect(creation.goal).toMatchObject({
      id,
      goal: 'Write a haiku',
      status: 'submitted',
      statusReason: null,
      requestedMembers: null,
      team: [],
      groupId: null,
      depth: 0,
      maxDepth: 1,
      parentTaskId: null,
      parentGoalId: null,
      budgetTokens: 500,
      budgetSeconds: null,
      promptTokens: 0,
      roundStartedAt: NOW,
      roundStartTokens: 0,
      idempotencyKey: 'k-1',
      accountId: 'acct-1',
      lastEventSeq: 0,
      createdAt: NOW,
      updatedAt: NOW,
      endedAt: null,
    });
    expect(creation.records).toEqual([
      { goal: expect.objectContaining({ status: 'submitted' }), previousStatus: null },
    ]);
  });

  it('lists named members once each, trimmed, the leader first; an empty list means autonomous formation', () => {
    const named = submitGoal(id, newSubmission({ members: [' lead ', 'bob', 'lead'] }), NOW);
    expect(named.goal.requestedMembers).toEqual(['lead', 'bob']);
    expect(submitGoal(id, newSubmission({ members: [] }), NOW).goal.requestedMembers).toBeNull();
  });

  it("puts a sub-team's goal one level below its parent, with the parent's nesting limit and account", () => {
    const parent = {
      goalId: '20000000-0000-4000-8000-000000000001',
      taskId: '30000000-0000-4000-8000-000000000001',
      accountId: 'acct-parent',
    };
    const creation = submitGoal(id, newSubmission({ maxDepth: 5, parent: { ...parent, depth: 1, maxDepth: 2 } }), NOW);
    expect(creation.goal).toMatchObject({
      depth: 2,
      maxDepth: 2,
      accountId: 'acct-parent',
      parentGoalId: parent.goalId,
      parentTaskId: parent.taskId,
    });
  });
});

describe('team formation', () => {
  const lease = new Date(NOW.getTime() + 30_000);

  it('claims a submitted goal: forming_team with a lease, recorded once', () => {
    const transition = expectTransition(claimFormation(newGoal({ status: 'submitted', groupId: null }), NOW, lease));
    expect(transition.goal).toMatchObject({ status: 'forming_team', formationLeaseUntil: lease, updatedAt: NOW });
    expect(recorded(transition)).toEqual(['submitted→forming_team']);
  });

  it('takes over a forming goal whose lease expired, without recording a status again', () => {
    const expired = forming({ formationLeaseUntil: new Date(NOW.getTime() - 1) });
    const transition = expectTransition(claimFormation(expired, NOW, lease));
    expect(transition.goal.formationLeaseUntil).toEqual(lease);
    expect(transition.records).toEqual([]);
  });

  it('leaves a goal alone whose lease another formation holds, or that formed its team already', () => {
    expectRejection(claimFormation(forming({ formationLeaseUntil: lease }), NOW, lease), 'FORMATION_LEASED');
    expectRejection(claimFormation(newGoal({ status: 'working' }), NOW, lease), 'NOT_FORMING');
    expectRejection(claimFormation(newGoal({ status: 'canceled' }), NOW, lease), 'NOT_FORMING');
  });

  it('extends the lease only while the goal forms its team', () => {
    const later = new Date(NOW.getTime() + 60_000);
    const transition = expectTransition(renewFormationLease(forming({ formationLeaseUntil: lease }), NOW, later));
    expect(transition.goal.formationLeaseUntil).toEqual(later);
    expect(transition.records).toEqual([]);
    expectRejection(renewFormationLease(newGoal({ status: 'canceled' }), NOW, later), 'NOT_FORMING_TEAM');
    expectRejection(renewFormationLease(newGoal({ status: 'working' }), NOW, later), 'NOT_FORMING_TEAM');
  });

  it('records the chosen team with what choosing it cost, only while forming', () => {
    const team = [{ agentId: BOB, name: 'bob', reason: 'writes' }];
    const transition = expectTransition(
      recordTeam(
        forming({ promptTokens: 5 }),
        team,
        newUsage({ promptTokens: 10, completionTokens: 3, modelCalls: 2 }),
        NOW,
      ),
    );
    expect(transition.goal).toMatchObject({ team, promptTokens: 15, completionTokens: 3, modelCalls: 2 });
    expectRejection(recordTeam(newGoal({ status: 'canceled' }), team, newUsage(), NOW), 'NOT_FORMING_TEAM');
  });

  it('starts working once the group is open, and drops the lease', () => {
    const transition = expectTransition(openedGroup(forming({ formationLeaseUntil: lease }), GROUP, NOW));
    expect(transition.goal).toMatchObject({ status: 'working', groupId: GROUP, formationLeaseUntil: null });
    expect(recorded(transition)).toEqual(['forming_team→working']);
    expect(transition.followUpEnd).toBe(false);
  });

  it('goes on to input_required at once when the leader already asked the person', () => {
    const transition = expectTransition(openedGroup(forming({ waitingForUser: true }), GROUP, NOW));
    expect(recorded(transition)).toEqual(['forming_team→working', 'working→input_required']);
  });

  it('forces a conclusion at once when the budget ran out while the team formed', () => {
    const spent = forming({ budgetTokens: 100, promptTokens: 100 });
    const transition = expectTransition(openedGroup(spent, GROUP, NOW));
    expect(transition.forceConclusion).toEqual({ groupId: GROUP, reason: expect.stringMatching(/Token budget/) });
    expect(recorded(transition)).toEqual(['forming_team→working', 'working→working']);
  });

  it('only learns the group of a goal canceled (or concluded) meanwhile, and runs its end’s follow-ups', () => {
    const transition = expectTransition(openedGroup(newGoal({ status: 'canceled', groupId: null }), GROUP, NOW));
    expect(transition.goal).toMatchObject({ status: 'canceled', groupId: GROUP });
    expect(transition.records).toEqual([]);
    expect(transition.followUpEnd).toBe(true);
  });

  it('fails a goal without a team, counting what the attempts cost; once', () => {
    const transition = expectTransition(
      formationFailed(forming({ formationLeaseUntil: lease }), 'No suitable agent', newUsage({ promptTokens: 7 }), NOW),
    );
    expect(transition.goal).toMatchObject({
      status: 'failed',
      statusReason: 'No suitable agent',
      promptTokens: 7,
      formationLeaseUntil: null,
      endedAt: NOW,
    });
    expect(transition.cancelOpenTasks).toMatch(/failed: No suitable agent/);
    expect(transition.followUpEnd).toBe(true);
    expect(formationFailed(newGoal({ status: 'canceled' }), 'late', newUsage(), NOW)).toMatchObject({
      outcome: 'unchanged',
    });
  });
});

describe('canceling', () => {
  it('cancels an open goal: tasks canceled with the reason, follow-ups after commit', () => {
    const transition = expectTransition(cancelGoal(forming({ formationLeaseUntil: NOW }), 'Not needed', NOW));
    expect(transition.goal).toMatchObject({ status: 'canceled', statusReason: 'Not needed', endedAt: NOW });
    expect(transition.goal.formationLeaseUntil).toBeNull();
    expect(transition.cancelOpenTasks).toBe('The goal was canceled: Not needed');
    expect(transition.followUpEnd).toBe(true);
  });

  it('changes nothing when the goal is canceled already, and refuses to cancel an ended goal', () => {
    expect(cancelGoal(newGoal({ status: 'canceled' }), 'again', NOW)).toMatchObject({ outcome: 'unchanged' });
    expectRejection(cancelGoal(newGoal({ status: 'completed' }), 'too late', NOW), 'GOAL_ENDED');
    expectRejection(cancelGoal(newGoal({ status: 'failed' }), 'too late', NOW), 'GOAL_ENDED');
  });

  it('cancels a sub-goal whose parent task was given up, unless it ended already', () => {
    const transition = expectTransition(abandonSubGoal(newGoal(), 'The task was canceled', NOW));
    expect(transition.goal.status).toBe('canceled');
    for (const status of ['completed', 'failed', 'canceled'] as GoalStatus[]) {
      expect(abandonSubGoal(newGoal({ status }), 'x', NOW)).toMatchObject({ outcome: 'unchanged' });
    }
  });
});

describe('a person in the conversation', () => {
  it('may post once the team works, or to a completed goal; not while forming, nor to a failed or canceled one', () => {
    expect(checkPostMessage(newGoal())).toEqual({ outcome: 'allowed', groupId: GROUP });
    expect(checkPostMessage(newGoal({ status: 'completed' }))).toEqual({ outcome: 'allowed', groupId: GROUP });
    expectRejection(checkPostMessage(newGoal({ status: 'failed' })), 'GOAL_CLOSED');
    expectRejection(checkPostMessage(newGoal({ status: 'canceled' })), 'GOAL_CLOSED');
    expectRejection(checkPostMessage(forming()), 'TEAM_NOT_FORMED');
    expectRejection(checkPostMessage(newGoal({ status: 'submitted', groupId: null })), 'TEAM_NOT_FORMED');
  });

  it('answers the team: input_required goes back to working', () => {
    const transition = expectTransition(personPosted(newGoal({ status: 'input_required', waitingForUser: true }), NOW));
    expect(transition.goal).toMatchObject({ status: 'working', waitingForUser: false });
    expect(recorded(transition)).toEqual(['input_required→working']);
  });

  it('re-opens a completed goal: a new round with fresh budgets and no old reason', () => {
    const completed = newGoal({
      status: 'completed',
      statusReason: 'Token budget reached',
      conclusionForcedAt: STARTED,
      promptTokens: 80,
      completionTokens: 20,
      endedAt: STARTED,
    });
    const transition = expectTransition(personPosted(completed, NOW));
    expect(transition.goal).toMatchObject({
      status: 'working',
      statusReason: null,
      roundStartedAt: NOW,
      roundStartTokens: 100,
      conclusionForcedAt: null,
      endedAt: null,
    });
  });

  it('changes no status of a goal that was working anyway', () => {
    expect(expectTransition(personPosted(newGoal(), NOW)).records).toEqual([]);
  });
});

describe('messages of the group', () => {
  it('count their usage towards the goal', () => {
    const transition = expectTransition(
      messagePosted(
        newGoal({ promptTokens: 1 }),
        newMessage(),
        newUsage({ promptTokens: 2, completionTokens: 3 }),
        NOW,
      ),
    );
    expect(transition.goal).toMatchObject({ promptTokens: 3, completionTokens: 3, modelCalls: 0 });
    expect(transition.records).toEqual([]);
  });

  it('a question to the person makes the goal input_required; a member speaking again makes it working', () => {
    const asked = expectTransition(messagePosted(newGoal(), newMessage({ nextSpeaker: USER_SPEAKER }), undefined, NOW));
    expect(asked.goal).toMatchObject({ status: 'input_required', waitingForUser: true });
    const waiting = newGoal({ status: 'input_required', waitingForUser: true });
    const spoke = expectTransition(messagePosted(waiting, newMessage(), undefined, NOW));
    expect(spoke.goal).toMatchObject({ status: 'working', waitingForUser: false });
  });

  it('a system notice does not end the wait for the person', () => {
    const waiting = newGoal({ status: 'input_required', waitingForUser: true });
    const notice = newMessage({ type: 'system', senderId: SYSTEM_SENDER, nextSpeaker: null });
    const transition = expectTransition(messagePosted(waiting, notice, undefined, NOW));
    expect(transition.goal).toMatchObject({ status: 'input_required', waitingForUser: true });
  });

  it('the person’s own message resumes the goal', () => {
    const waiting = newGoal({ status: 'input_required', waitingForUser: true });
    const transition = expectTransition(messagePosted(waiting, newMessage({ type: 'user' }), undefined, NOW));
    expect(transition.goal.status).toBe('working');
  });

  it('the group’s first message, overtaking CreateGroupV1’s reply, tells a forming goal its group', () => {
    const transition = expectTransition(messagePosted(forming(), newMessage(), undefined, NOW));
    expect(transition.goal).toMatchObject({ status: 'forming_team', groupId: GROUP });
  });

  it('usage past the token budget forces a conclusion, once per round', () => {
    const goal = newGoal({ budgetTokens: 100, promptTokens: 90 });
    const transition = expectTransition(messagePosted(goal, newMessage(), newUsage({ completionTokens: 10 }), NOW));
    const reason = 'Token budget reached (100 of 100 tokens): the team concludes with what it has';
    expect(transition.goal).toMatchObject({ statusReason: reason, conclusionForcedAt: NOW });
    expect(transition.forceConclusion).toEqual({ groupId: GROUP, reason });
    expect(recorded(transition)).toEqual(['working→working']);

    const again = expectTransition(
      messagePosted({ ...goal, ...transition.goal }, newMessage(), newUsage({ completionTokens: 5 }), NOW),
    );
    expect(again.forceConclusion).toBeNull();
    expect(again.records).toEqual([]);
  });
});

describe('the group’s state', () => {
  it('concluded completes an active (or still forming) goal with the conclusion; its open tasks are canceled', () => {
    for (const goal of [newGoal(), newGoal({ status: 'input_required' }), forming({ formationLeaseUntil: NOW })]) {
      const transition = expectTransition(
        groupStateChanged(goal, newGroup({ state: 'concluded', conclusion: 'Done.' }), NOW),
      );
      expect(transition.goal).toMatchObject({ status: 'completed', conclusion: 'Done.', formationLeaseUntil: null });
      expect(transition.goal.groupId).toBe(GROUP);
      expect(transition.cancelOpenTasks).toBe('The group concluded; this task is no longer needed');
      expect(transition.followUpEnd).toBe(true);
    }
  });

  it('ignores a change of another group than the goal’s own (a forged or stray event)', () => {
    const otherGroup = newGroup({
      id: '30000000-0000-4000-8000-00000000ffff',
      state: 'concluded',
      conclusion: 'Forged',
    });
    expect(groupStateChanged(newGoal(), otherGroup, NOW)).toMatchObject({
      outcome: 'unchanged',
      why: expect.stringMatching(/not the goal's group/),
    });
    expect(groupStateChanged(newGoal(), { ...otherGroup, state: 'failed' }, NOW)).toMatchObject({
      outcome: 'unchanged',
    });
  });

  it('concluded keeps the reason a budget gave for concluding early', () => {
    const goal = newGoal({ statusReason: 'Time budget reached' });
    const transition = expectTransition(groupStateChanged(goal, newGroup({ state: 'concluded' }), NOW));
    expect(transition.goal).toMatchObject({ status: 'completed', conclusion: '', statusReason: 'Time budget reached' });
  });

  it('concluded changes nothing for a goal that ended already', () => {
    const canceled = newGoal({ status: 'canceled' });
    expect(groupStateChanged(canceled, newGroup({ state: 'concluded' }), NOW)).toMatchObject({ outcome: 'unchanged' });
  });

  it('failed fails an open goal and marks its group closed; an ended goal stays as it is', () => {
    const transition = expectTransition(
      groupStateChanged(newGoal(), newGroup({ state: 'failed', reason: 'closed' }), NOW),
    );
    expect(transition.goal).toMatchObject({
      status: 'failed',
      statusReason: 'The group chat ended: closed',
      groupClosedAt: NOW,
    });
    const completed = newGoal({ status: 'completed' });
    expect(groupStateChanged(completed, newGroup({ state: 'failed' }), NOW)).toMatchObject({ outcome: 'unchanged' });
  });

  it('concluding says why the discussion was cut short, unless a reason is there already', () => {
    const cut = expectTransition(
      groupStateChanged(newGoal(), newGroup({ state: 'concluding', reason: 'Turn limit' }), NOW),
    );
    expect(cut.goal.statusReason).toBe('Turn limit');
    expect(recorded(cut)).toEqual(['working→working']);
    const budget = newGoal({ statusReason: 'Token budget reached' });
    const kept = expectTransition(groupStateChanged(budget, newGroup({ state: 'concluding' }), NOW));
    expect(kept.goal.statusReason).toBe('Token budget reached');
    expect(kept.records).toEqual([]);
  });

  it('an open state follows whether the person holds the turn', () => {
    const asked = expectTransition(groupStateChanged(newGoal(), newGroup({ currentSpeaker: USER_SPEAKER }), NOW));
    expect(asked.goal).toMatchObject({ status: 'input_required', waitingForUser: true });
    const waiting = newGoal({ status: 'input_required', waitingForUser: true });
    const paused = expectTransition(
      groupStateChanged(waiting, newGroup({ state: 'paused', currentSpeaker: null }), NOW),
    );
    expect(paused.goal).toMatchObject({ status: 'working', waitingForUser: false });
  });

  it('a re-opened group (discussing again) resumes a completed goal with a new round', () => {
    const completed = newGoal({ status: 'completed', promptTokens: 40, endedAt: STARTED });
    const transition = expectTransition(
      groupStateChanged(completed, newGroup({ state: 'discussing', previousState: 'concluded' }), NOW),
    );
    expect(transition.goal).toMatchObject({
      status: 'working',
      roundStartTokens: 40,
      roundStartedAt: NOW,
      endedAt: null,
    });
  });

  it.each(['discussing', 'paused', 'awaiting_sync_tasks'] as const)(
    'a %s change from before the conclusion, arriving after it, leaves a completed goal completed',
    (previousState) => {
      const completed = newGoal({ status: 'completed', endedAt: STARTED });
      expect(groupStateChanged(completed, newGroup({ state: 'discussing', previousState }), NOW)).toMatchObject({
        outcome: 'unchanged',
        why: expect.stringContaining('from before the conclusion'),
      });
    },
  );
});

describe('budgets', () => {
  it('are never exhausted without a budget', () => {
    expect(exhaustedBudget(newGoal({ promptTokens: 1e6 }), NOW)).toBeNull();
  });

  it('run out when the tokens of this round reach the token budget', () => {
    expect(exhaustedBudget(newGoal({ budgetTokens: 100, promptTokens: 60, completionTokens: 39 }), NOW)).toBeNull();
    expect(exhaustedBudget(newGoal({ budgetTokens: 100, promptTokens: 60, completionTokens: 40 }), NOW)).toBe(
      'Token budget reached (100 of 100 tokens): the team concludes with what it has',
    );
  });

  it('count a re-opened goal from the start of its new round', () => {
    const reopened = newGoal({ budgetTokens: 100, promptTokens: 150, completionTokens: 50, roundStartTokens: 180 });
    expect(exhaustedBudget(reopened, NOW)).toBeNull();
  });

  it('run out when the seconds since the round started reach the time budget', () => {
    expect(exhaustedBudget(newGoal({ budgetSeconds: 61 }), NOW)).toBeNull();
    expect(exhaustedBudget(newGoal({ budgetSeconds: 60 }), NOW)).toBe(
      'Time budget reached (60 of 60 seconds): the team concludes with what it has',
    );
  });

  it('the sweeper forces a conclusion for an active goal with a group, once', () => {
    const late = newGoal({ budgetSeconds: 30 });
    const transition = expectTransition(checkBudget(late, NOW));
    expect(transition.forceConclusion?.reason).toMatch(/Time budget reached \(60 of 30 seconds\)/);
    expect(checkBudget({ ...late, conclusionForcedAt: NOW }, NOW)).toMatchObject({ outcome: 'unchanged' });
    expect(checkBudget({ ...late, groupId: null }, NOW)).toMatchObject({ outcome: 'unchanged' });
    expect(checkBudget({ ...late, status: 'completed' }, NOW)).toMatchObject({ outcome: 'unchanged' });
    expect(checkBudget(newGoal(), NOW)).toMatchObject({ outcome: 'unchanged' });
  });

  it('usage spent elsewhere (a task, a brief, a sub-team) counts and is checked', () => {
    const goal = newGoal({ budgetTokens: 50 });
    const transition = expectTransition(
      usageSpent(goal, newUsage({ promptTokens: 30, completionTokens: 25, modelCalls: 1 }), NOW),
    );
    expect(transition.goal).toMatchObject({ promptTokens: 30, completionTokens: 25, modelCalls: 1 });
    expect(transition.forceConclusion).not.toBeNull();
    expect(usageSpent(newGoal(), undefined, NOW)).toMatchObject({ outcome: 'unchanged' });
  });
});

describe('follow-ups of an ended goal', () => {
  it('records once that the group of a failed or canceled goal is closed, without a status entry', () => {
    const canceled = newGoal({ status: 'canceled' });
    const transition = expectTransition(groupClosed(canceled, NOW));
    expect(transition.goal.groupClosedAt).toEqual(NOW);
    expect(transition.records).toEqual([]);
    expect(transition.followUpEnd).toBe(false);
    expect(groupClosed({ ...canceled, groupClosedAt: STARTED }, NOW)).toMatchObject({ outcome: 'unchanged' });
  });

  it('clears a forced conclusion that could not be sent, so the budget check asks again', () => {
    const forced = newGoal({ budgetSeconds: 30, conclusionForcedAt: STARTED });
    const transition = expectTransition(forcedConclusionUnsent(forced, NOW));
    expect(transition.goal.conclusionForcedAt).toBeNull();
    expect(transition.records).toEqual([]);
    expect(checkBudget({ ...forced, ...transition.goal }, NOW)).toMatchObject({ outcome: 'transition' });
    expect(forcedConclusionUnsent(newGoal(), NOW)).toMatchObject({ outcome: 'unchanged' });
  });
});

describe('every transition', () => {
  it('leaves the snapshot it was given unchanged', () => {
    const goal = newGoal({ status: 'input_required', waitingForUser: true });
    const before = structuredClone(goal);
    personPosted(goal, NOW);
    cancelGoal(goal, 'x', NOW);
    messagePosted(goal, newMessage({ nextSpeaker: USER_SPEAKER }), newUsage({ promptTokens: 5 }), NOW);
    expect(goal).toEqual(before);
  });
});
