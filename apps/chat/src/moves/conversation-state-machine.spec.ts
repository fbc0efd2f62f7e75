import 'reflect-metadata';
import {
  applyTaskUpdate,
  closeGroup,
  forceConclusion,
  openConversation,
  postUserMessage,
  proposeMove,
  timeOutTurn,
  type ConversationSnapshot,
  type Decision,
  type LedgerTask,
  type ProposedMove,
  type Rejection,
  type TaskUpdate,
  type Transition,
} from './conversation-state-machine.js';
import { LEDGER_RESULT_MAX } from './notices.js';

const LEADER = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const STRANGER = '00000000-0000-4000-8000-0000000000ff';
const NOW = new Date('2026-01-01T12:00:00.000Z');
const TIMEOUT_SECONDS = 30;
const NEXT_DEADLINE = new Date(NOW.getTime() + TIMEOUT_SECONDS * 1000);

function newSnapshot(overrides: Partial<ConversationSnapshot> = {}): ConversationSnapshot {
  return {
    groupId: '10000000-0000-4000-8000-000000000001',
    goalId: '20000000-0000-4000-8000-000000000001',
    goal: 'Write a report on the platform',
    leaderId: LEADER,
    members: [
      { agentId: LEADER, name: 'lead', reason: 'plans' },
      { agentId: BOB, name: 'bob', reason: null },
      { agentId: CAROL, name: 'carol', reason: null },
    ],
    originalMaxTurns: 12,
    turnTimeoutSeconds: TIMEOUT_SECONDS,
    tasks: [],
    state: 'discussing',
    currentSpeaker: LEADER,
    turn: 1,
    maxTurns: 12,
    turnDeadline: new Date(NOW.getTime() + 5000),
    awaitingTaskIds: [],
    resumeSpeakerId: null,
    conclusion: null,
    ...overrides,
  };
}

function newTask(overrides: Partial<LedgerTask> = {}): LedgerTask {
  return {
    taskId: '30000000-0000-4000-8000-000000000001',
    assigneeId: BOB,
    assigneeName: 'bob',
    assignerId: LEADER,
    mode: 'async',
    abstract: 'Run the numbers',
    description: 'Run the numbers in `1+1`',
    state: 'working',
    result: null,
    statusMessage: null,
    sourceUpdatedAt: '2026-01-01T11:59:00.000Z',
    ...overrides,
  };
}

function newMove(overrides: Partial<ProposedMove> = {}): ProposedMove {
  return { speakerId: LEADER, turn: 1, type: 'discussion', content: 'Let us start.', nextSpeaker: BOB, ...overrides };
}

function newUpdate(task: LedgerTask, overrides: Partial<TaskUpdate> = {}): TaskUpdate {
  return {
    taskId: task.taskId,
    state: 'completed',
    result: 'The answer is 2.',
    statusMessage: null,
    updatedAt: '2026-01-01T12:00:00.000Z',
    ...overrides,
  };
}

let minted = 0;
function mintTaskId(): string {
  minted += 1;
  return `40000000-0000-4000-8000-${String(minted).padStart(12, '0')}`;
}

function expectTransition(decision: Decision): Transition {
  if (decision.outcome !== 'transition') throw new Error(`expected a transition, got ${JSON.stringify(decision)}`);
  return decision;
}

function expectRejection(decision: Decision, code: Rejection['code'], rule: Rejection['rule']): Rejection {
  expect(decision).toMatchObject({ outcome: 'rejected', code, rule });
  expect((decision as Rejection).reason.length).toBeGreaterThan(10);
  return decision as Rejection;
}

beforeEach(() => {
  minted = 0;
});

describe('openConversation', () => {
  it('opens discussing at turn 1 with the leader holding a deadline-bound turn', () => {
    const opening = openConversation(
      {
        goal: 'g',
        leaderId: LEADER,
        members: newSnapshot().members,
        maxTurns: 6,
        turnTimeoutSeconds: TIMEOUT_SECONDS,
      },
      NOW,
    );
    expect(opening.fields).toEqual({
      state: 'discussing',
      currentSpeaker: LEADER,
      turn: 1,
      maxTurns: 6,
      turnDeadline: NEXT_DEADLINE,
      awaitingTaskIds: [],
      resumeSpeakerId: null,
      conclusion: null,
    });
    expect(opening.grant).toEqual({ speakerId: LEADER, reason: expect.any(String), mustConclude: false });
    expect(opening.message).toMatchObject({ type: 'system', senderId: 'system' });
    expect(opening.message.content).toContain('lead leads');
  });

  it('refuses a leader who is not a member', () => {
    expect(() =>
      openConversation(
        { goal: 'g', leaderId: STRANGER, members: newSnapshot().members, maxTurns: 6, turnTimeoutSeconds: 5 },
        NOW,
      ),
    ).toThrow('leader');
  });
});

describe('proposeMove: rejections', () => {
  it('rejects every move in a closed group', () => {
    const snapshot = newSnapshot({ state: 'failed', currentSpeaker: null, turnDeadline: null });
    expectRejection(proposeMove(snapshot, newMove(), NOW, mintTaskId), 'INVALID_STATE', 'GROUP_CLOSED');
  });

  it('rejects every move in a concluded group and says a follow-up re-opens it', () => {
    const snapshot = newSnapshot({ state: 'concluded', currentSpeaker: null, turnDeadline: null, conclusion: 'done' });
    const rejection = expectRejection(
      proposeMove(snapshot, newMove({ type: 'conclude' }), NOW, mintTaskId),
      'INVALID_STATE',
      'GROUP_CONCLUDED',
    );
    expect(rejection.reason).toContain('re-opens');
  });

  it('forbids non-members and lists the members', () => {
    const rejection = expectRejection(
      proposeMove(newSnapshot(), newMove({ speakerId: STRANGER }), NOW, mintTaskId),
      'FORBIDDEN',
      'NOT_A_MEMBER',
    );
    expect(rejection.reason).toContain(`bob = ${BOB}`);
  });

  it('rejects moves while the group waits for sync tasks, naming them and who speaks next', () => {
    const task = newTask({ mode: 'sync' });
    const snapshot = newSnapshot({
      state: 'awaiting_sync_tasks',
      currentSpeaker: null,
      turnDeadline: null,
      awaitingTaskIds: [task.taskId],
      resumeSpeakerId: LEADER,
      tasks: [task],
    });
    const rejection = expectRejection(
      proposeMove(snapshot, newMove(), NOW, mintTaskId),
      'INVALID_STATE',
      'AWAITING_SYNC_TASKS',
    );
    expect(rejection.reason).toContain('Run the numbers');
    expect(rejection.reason).toContain('lead gets the turn');
  });

  it('rejects a conclusion while sync tasks are open', () => {
    const task = newTask({ mode: 'sync' });
    const snapshot = newSnapshot({
      state: 'awaiting_sync_tasks',
      currentSpeaker: null,
      turnDeadline: null,
      awaitingTaskIds: [task.taskId],
      resumeSpeakerId: LEADER,
      tasks: [task],
    });
    const rejection = expectRejection(
      proposeMove(snapshot, newMove({ type: 'conclude' }), NOW, mintTaskId),
      'INVALID_STATE',
      'SYNC_TASKS_OPEN',
    );
    expect(rejection.reason).toContain('No conclusion while sync tasks are open');
  });

  it('rejects a conclusion in a discussing group whose ledger still has an open sync task', () => {
    const snapshot = newSnapshot({ tasks: [newTask({ mode: 'sync', state: 'working' })] });
    expectRejection(
      proposeMove(snapshot, newMove({ type: 'conclude' }), NOW, mintTaskId),
      'INVALID_STATE',
      'SYNC_TASKS_OPEN',
    );
  });

  it('rejects moves while paused', () => {
    const task = newTask();
    const snapshot = newSnapshot({
      state: 'paused',
      currentSpeaker: null,
      turnDeadline: null,
      awaitingTaskIds: [task.taskId],
      resumeSpeakerId: BOB,
      tasks: [task],
    });
    const rejection = expectRejection(proposeMove(snapshot, newMove(), NOW, mintTaskId), 'INVALID_STATE', 'PAUSED');
    expect(rejection.reason).toContain('bob gets the turn');
  });

  it('rejects moves while the person is asked a question', () => {
    const snapshot = newSnapshot({ currentSpeaker: 'user', turnDeadline: null, resumeSpeakerId: BOB });
    const rejection = expectRejection(
      proposeMove(snapshot, newMove({ speakerId: BOB }), NOW, mintTaskId),
      'INVALID_STATE',
      'WAITING_FOR_USER',
    );
    expect(rejection.reason).toContain("bob's question");
  });

  it('rejects a move for a turn that is over, and one for a turn that has not started', () => {
    const snapshot = newSnapshot({ turn: 4, currentSpeaker: BOB });
    const old = expectRejection(
      proposeMove(snapshot, newMove({ speakerId: BOB, turn: 3 }), NOW, mintTaskId),
      'INVALID_STATE',
      'STALE_TURN',
    );
    expect(old.reason).toContain('Turn 3 is over');
    const future = expectRejection(
      proposeMove(snapshot, newMove({ speakerId: BOB, turn: 5 }), NOW, mintTaskId),
      'INVALID_STATE',
      'STALE_TURN',
    );
    expect(future.reason).toContain('has not started');
  });

  it('rejects a member who does not hold the turn, naming who does', () => {
    const rejection = expectRejection(
      proposeMove(newSnapshot(), newMove({ speakerId: BOB, nextSpeaker: CAROL }), NOW, mintTaskId),
      'INVALID_STATE',
      'NOT_YOUR_TURN',
    );
    expect(rejection.reason).toContain("lead's turn");
  });

  it.each(['discussion', 'sync_task_assign', 'async_task_assign', 'pause'] as const)(
    'accepts only conclude in a must-conclude turn (rejects %s)',
    (type) => {
      const snapshot = newSnapshot({ state: 'concluding', turn: 13 });
      const move = newMove({
        type,
        turn: 13,
        tasks: [{ assigneeId: BOB, description: 'x', abstract: 'x' }],
        awaitTaskIds: [],
      });
      expectRejection(proposeMove(snapshot, move, NOW, mintTaskId), 'INVALID_STATE', 'MUST_CONCLUDE');
    },
  );

  it.each(['discussion', 'async_task_assign'] as const)('requires a next speaker for %s', (type) => {
    const move = newMove({
      type,
      nextSpeaker: undefined,
      tasks: [{ assigneeId: BOB, description: 'd', abstract: 'a' }],
    });
    expectRejection(proposeMove(newSnapshot(), move, NOW, mintTaskId), 'INVALID_STATE', 'NEXT_SPEAKER_REQUIRED');
  });

  it.each(['discussion', 'async_task_assign'] as const)('rejects an unknown next speaker for %s', (type) => {
    const move = newMove({
      type,
      nextSpeaker: STRANGER,
      tasks: [{ assigneeId: BOB, description: 'd', abstract: 'a' }],
    });
    expectRejection(proposeMove(newSnapshot(), move, NOW, mintTaskId), 'INVALID_STATE', 'UNKNOWN_NEXT_SPEAKER');
  });

  it('rejects a discussion that hands the turn to the speaker itself', () => {
    expectRejection(
      proposeMove(newSnapshot(), newMove({ nextSpeaker: LEADER }), NOW, mintTaskId),
      'INVALID_STATE',
      'SELF_NEXT_SPEAKER',
    );
  });

  it.each([undefined, []])('rejects a task-assigning move without tasks (%p)', (tasks) => {
    expectRejection(
      proposeMove(newSnapshot(), newMove({ type: 'sync_task_assign', tasks }), NOW, mintTaskId),
      'INVALID_STATE',
      'TASKS_REQUIRED',
    );
  });

  it('rejects more than 8 tasks in one move', () => {
    const tasks = Array.from({ length: 9 }, () => ({ assigneeId: BOB, description: 'd', abstract: 'a' }));
    expectRejection(
      proposeMove(newSnapshot(), newMove({ type: 'async_task_assign', tasks }), NOW, mintTaskId),
      'INVALID_STATE',
      'TOO_MANY_TASKS',
    );
  });

  it('rejects a task for a non-member', () => {
    const tasks = [
      { assigneeId: BOB, description: 'd', abstract: 'fine' },
      { assigneeId: STRANGER, description: 'd', abstract: 'for a stranger' },
    ];
    const rejection = expectRejection(
      proposeMove(newSnapshot(), newMove({ type: 'sync_task_assign', tasks }), NOW, mintTaskId),
      'INVALID_STATE',
      'ASSIGNEE_NOT_MEMBER',
    );
    expect(rejection.reason).toContain('Task 2 (“for a stranger”)');
  });

  it.each([undefined, []])('rejects a pause without tasks to wait for (%p)', (awaitTaskIds) => {
    expectRejection(
      proposeMove(newSnapshot(), newMove({ type: 'pause', awaitTaskIds }), NOW, mintTaskId),
      'INVALID_STATE',
      'AWAIT_TASKS_REQUIRED',
    );
  });

  it('rejects a pause on a task that is not in the ledger, listing the open ones', () => {
    const open = newTask();
    const rejection = expectRejection(
      proposeMove(
        newSnapshot({ tasks: [open] }),
        newMove({ type: 'pause', awaitTaskIds: ['50000000-0000-4000-8000-000000000000'] }),
        NOW,
        mintTaskId,
      ),
      'INVALID_STATE',
      'UNKNOWN_TASK',
    );
    expect(rejection.reason).toContain(open.taskId);
  });

  it('rejects a pause on a task that already finished', () => {
    const done = newTask({ state: 'completed', result: 'ok' });
    const rejection = expectRejection(
      proposeMove(
        newSnapshot({ tasks: [done] }),
        newMove({ type: 'pause', awaitTaskIds: [done.taskId] }),
        NOW,
        mintTaskId,
      ),
      'INVALID_STATE',
      'TASK_FINISHED',
    );
    expect(rejection.reason).toContain('already finished (completed)');
  });
});

describe('proposeMove: transitions', () => {
  it('discussion hands the next turn to the named member', () => {
    const usage = { promptTokens: 10, completionTokens: 5, modelCalls: 1 };
    const transition = expectTransition(proposeMove(newSnapshot(), newMove({ usage }), NOW, mintTaskId));
    expect(transition.fields).toMatchObject({
      state: 'discussing',
      currentSpeaker: BOB,
      turn: 2,
      turnDeadline: NEXT_DEADLINE,
    });
    expect(transition.grant).toEqual({ speakerId: BOB, reason: 'lead named you to speak next.', mustConclude: false });
    expect(transition.messages).toEqual([
      {
        type: 'discussion',
        senderId: LEADER,
        senderName: 'lead',
        content: 'Let us start.',
        nextSpeaker: BOB,
        tasks: null,
        awaitTaskIds: null,
        usage,
      },
    ]);
    expect(transition.stateChange).toBeNull();
    expect(transition.assignment).toBeNull();
  });

  it('a discussion may name the speaker itself when it is the only member', () => {
    const snapshot = newSnapshot({ members: [{ agentId: LEADER, name: 'lead', reason: null }] });
    const transition = expectTransition(proposeMove(snapshot, newMove({ nextSpeaker: LEADER }), NOW, mintTaskId));
    expect(transition.fields).toMatchObject({ currentSpeaker: LEADER, turn: 2 });
  });

  it('naming the person asks them: no grant, no deadline, the asker remembered, the turn counter kept', () => {
    const transition = expectTransition(proposeMove(newSnapshot(), newMove({ nextSpeaker: 'user' }), NOW, mintTaskId));
    expect(transition.fields).toMatchObject({
      state: 'discussing',
      currentSpeaker: 'user',
      turn: 1,
      turnDeadline: null,
      resumeSpeakerId: LEADER,
    });
    expect(transition.grant).toBeNull();
    expect(transition.messages[0].nextSpeaker).toBe('user');
  });

  it('past the turn limit the group becomes concluding and the leader must conclude', () => {
    const snapshot = newSnapshot({ turn: 12, currentSpeaker: BOB });
    const transition = expectTransition(
      proposeMove(snapshot, newMove({ speakerId: BOB, turn: 12, nextSpeaker: CAROL }), NOW, mintTaskId),
    );
    expect(transition.fields).toMatchObject({ state: 'concluding', currentSpeaker: LEADER, turn: 13 });
    expect(transition.grant).toMatchObject({ speakerId: LEADER, mustConclude: true });
    expect(transition.grant!.reason).toContain('turn limit (12)');
    expect(transition.messages.map((message) => message.type)).toEqual(['discussion', 'system']);
    expect(transition.messages[1].content).toContain('Turn limit reached (12 turns)');
    expect(transition.stateChange).toEqual({ previousState: 'discussing', reason: 'turn limit reached (12 turns)' });
  });

  it('sync_task_assign mints task ids, records them in the ledger and waits for them with nobody speaking', () => {
    const tasks = [
      { assigneeId: BOB, description: 'compute `1+1`', abstract: 'compute' },
      { assigneeId: CAROL, description: 'look it up', abstract: 'research' },
    ];
    const transition = expectTransition(
      proposeMove(newSnapshot(), newMove({ type: 'sync_task_assign', tasks, nextSpeaker: CAROL }), NOW, mintTaskId),
    );
    const ids = ['40000000-0000-4000-8000-000000000001', '40000000-0000-4000-8000-000000000002'];
    expect(transition.fields).toMatchObject({
      state: 'awaiting_sync_tasks',
      currentSpeaker: null,
      turnDeadline: null,
      turn: 1,
      awaitingTaskIds: ids,
      resumeSpeakerId: LEADER,
    });
    expect(transition.ledger).toEqual([
      expect.objectContaining({
        taskId: ids[0],
        assigneeId: BOB,
        assigneeName: 'bob',
        mode: 'sync',
        state: 'submitted',
      }),
      expect.objectContaining({ taskId: ids[1], assigneeId: CAROL, assigneeName: 'carol', assignerId: LEADER }),
    ]);
    expect(transition.assignment).toEqual({
      mode: 'sync',
      assignerId: LEADER,
      messageIndex: 0,
      tasks: transition.ledger,
      drafts: tasks,
    });
    // The turn returns to the assigner when the tasks finish, so a sync move's nextSpeaker is not used.
    expect(transition.messages[0]).toMatchObject({
      type: 'sync_task_assign',
      nextSpeaker: null,
      tasks: transition.ledger,
    });
    expect(transition.grant).toBeNull();
    expect(transition.stateChange).toEqual({
      previousState: 'discussing',
      reason: expect.stringContaining('2 sync task'),
    });
  });

  it('async_task_assign keeps discussing and hands the turn on (the assigner may name itself)', () => {
    const tasks = [{ assigneeId: BOB, description: 'compute', abstract: 'compute' }];
    const transition = expectTransition(
      proposeMove(newSnapshot(), newMove({ type: 'async_task_assign', tasks, nextSpeaker: LEADER }), NOW, mintTaskId),
    );
    expect(transition.fields).toMatchObject({
      state: 'discussing',
      currentSpeaker: LEADER,
      turn: 2,
      awaitingTaskIds: [],
    });
    expect(transition.ledger).toEqual([expect.objectContaining({ mode: 'async', state: 'submitted' })]);
    expect(transition.assignment).toMatchObject({ mode: 'async', assignerId: LEADER });
    expect(transition.grant).toMatchObject({ speakerId: LEADER, mustConclude: false });
    expect(transition.stateChange).toBeNull();
  });

  it('async_task_assign may ask the person next', () => {
    const tasks = [{ assigneeId: BOB, description: 'compute', abstract: 'compute' }];
    const transition = expectTransition(
      proposeMove(newSnapshot(), newMove({ type: 'async_task_assign', tasks, nextSpeaker: 'user' }), NOW, mintTaskId),
    );
    expect(transition.fields).toMatchObject({ currentSpeaker: 'user', resumeSpeakerId: LEADER, turnDeadline: null });
    expect(transition.grant).toBeNull();
  });

  it('pause waits for the named unfinished tasks (duplicates collapsed) with nobody speaking', () => {
    const first = newTask();
    const second = newTask({ taskId: '30000000-0000-4000-8000-000000000002', state: 'submitted' });
    const transition = expectTransition(
      proposeMove(
        newSnapshot({ tasks: [first, second] }),
        newMove({ type: 'pause', awaitTaskIds: [first.taskId, second.taskId, first.taskId], nextSpeaker: undefined }),
        NOW,
        mintTaskId,
      ),
    );
    expect(transition.fields).toMatchObject({
      state: 'paused',
      currentSpeaker: null,
      turnDeadline: null,
      awaitingTaskIds: [first.taskId, second.taskId],
      resumeSpeakerId: LEADER,
    });
    expect(transition.messages[0]).toMatchObject({ type: 'pause', awaitTaskIds: [first.taskId, second.taskId] });
    expect(transition.grant).toBeNull();
    expect(transition.stateChange?.previousState).toBe('discussing');
  });

  it('conclude ends the conversation with the content as the conclusion (open async tasks allowed)', () => {
    const transition = expectTransition(
      proposeMove(
        newSnapshot({ tasks: [newTask({ mode: 'async', state: 'working' })] }),
        newMove({ type: 'conclude', content: 'The answer is 42.' }),
        NOW,
        mintTaskId,
      ),
    );
    expect(transition.fields).toEqual({
      state: 'concluded',
      currentSpeaker: null,
      turn: 1,
      maxTurns: 12,
      turnDeadline: null,
      awaitingTaskIds: [],
      resumeSpeakerId: null,
      conclusion: 'The answer is 42.',
    });
    expect(transition.stateChange).toEqual({ previousState: 'discussing', reason: 'lead concluded' });
    expect(transition.grant).toBeNull();
  });

  it('a must-conclude turn concludes even while sync tasks are still open', () => {
    const snapshot = newSnapshot({
      state: 'concluding',
      turn: 13,
      tasks: [newTask({ mode: 'sync', state: 'working' })],
    });
    const transition = expectTransition(
      proposeMove(
        snapshot,
        newMove({ type: 'conclude', turn: 13, content: 'With what we have: 42.' }),
        NOW,
        mintTaskId,
      ),
    );
    expect(transition.fields).toMatchObject({ state: 'concluded', conclusion: 'With what we have: 42.' });
    expect(transition.stateChange?.previousState).toBe('concluding');
  });
});

describe('postUserMessage', () => {
  it('is refused in a closed group', () => {
    expectRejection(
      postUserMessage(newSnapshot({ state: 'failed', currentSpeaker: null }), { content: 'hi', author: 'user' }, NOW),
      'INVALID_STATE',
      'GROUP_CLOSED',
    );
  });

  it('re-opens a concluded group: leader speaks, the turn limit grows by the original limit', () => {
    const snapshot = newSnapshot({
      state: 'concluded',
      currentSpeaker: null,
      turnDeadline: null,
      turn: 7,
      maxTurns: 12,
      conclusion: 'done',
    });
    const transition = expectTransition(postUserMessage(snapshot, { content: 'And in French?', author: 'ana' }, NOW));
    expect(transition.fields).toMatchObject({
      state: 'discussing',
      currentSpeaker: LEADER,
      turn: 8,
      maxTurns: 24,
      conclusion: null,
      turnDeadline: NEXT_DEADLINE,
    });
    expect(transition.messages.map((message) => [message.type, message.senderId, message.senderName])).toEqual([
      ['user', 'user', 'ana'],
      ['system', 'system', 'system'],
    ]);
    expect(transition.grant).toMatchObject({ speakerId: LEADER, mustConclude: false });
    expect(transition.stateChange).toEqual({ previousState: 'concluded', reason: 're-opened by a follow-up from ana' });
  });

  it('an answer gives the turn back to the member who asked', () => {
    const snapshot = newSnapshot({ currentSpeaker: 'user', turnDeadline: null, resumeSpeakerId: BOB, turn: 3 });
    const transition = expectTransition(postUserMessage(snapshot, { content: 'Use metric.', author: 'user' }, NOW));
    expect(transition.fields).toMatchObject({ currentSpeaker: BOB, turn: 4, resumeSpeakerId: null });
    expect(transition.grant).toMatchObject({ speakerId: BOB, reason: 'user answered your question.' });
    expect(transition.stateChange).toBeNull();
  });

  it('an answer past the turn limit goes to the leader, who must conclude', () => {
    const snapshot = newSnapshot({ currentSpeaker: 'user', turnDeadline: null, resumeSpeakerId: BOB, turn: 12 });
    const transition = expectTransition(postUserMessage(snapshot, { content: 'ok', author: 'user' }, NOW));
    expect(transition.fields).toMatchObject({ state: 'concluding', currentSpeaker: LEADER, turn: 13 });
    expect(transition.grant?.mustConclude).toBe(true);
  });

  it('otherwise only joins the history (no change of speaker or state)', () => {
    const task = newTask();
    const snapshot = newSnapshot({
      state: 'paused',
      currentSpeaker: null,
      turnDeadline: null,
      awaitingTaskIds: [task.taskId],
      resumeSpeakerId: LEADER,
      tasks: [task],
    });
    const transition = expectTransition(postUserMessage(snapshot, { content: 'fyi', author: 'user' }, NOW));
    expect(transition.fields).toMatchObject({ state: 'paused', currentSpeaker: null, turn: 1 });
    expect(transition.messages).toHaveLength(1);
    expect(transition.grant).toBeNull();
    expect(transition.stateChange).toBeNull();
  });
});

describe('forceConclusion', () => {
  it('moves a discussing group to concluding with a must-conclude turn for the leader', () => {
    const snapshot = newSnapshot({ currentSpeaker: BOB, turn: 5 });
    const transition = expectTransition(forceConclusion(snapshot, 'token budget of 1000 reached', NOW));
    expect(transition.fields).toMatchObject({ state: 'concluding', currentSpeaker: LEADER, turn: 6 });
    expect(transition.grant).toMatchObject({ speakerId: LEADER, mustConclude: true });
    expect(transition.messages[0].content).toContain('Conclusion forced: token budget of 1000 reached');
    expect(transition.stateChange).toEqual({
      previousState: 'discussing',
      reason: 'conclusion forced: token budget of 1000 reached',
    });
  });

  it.each(['awaiting_sync_tasks', 'paused'] as const)('stops waiting when forced in %s', (state) => {
    const task = newTask({ mode: 'sync' });
    const snapshot = newSnapshot({
      state,
      currentSpeaker: null,
      turnDeadline: null,
      awaitingTaskIds: [task.taskId],
      resumeSpeakerId: BOB,
      tasks: [task],
    });
    const transition = expectTransition(forceConclusion(snapshot, 'time budget', NOW));
    expect(transition.fields).toMatchObject({
      state: 'concluding',
      currentSpeaker: LEADER,
      awaitingTaskIds: [],
      resumeSpeakerId: null,
    });
  });

  it('is a no-op when already concluding, and refused once concluded or closed', () => {
    expect(forceConclusion(newSnapshot({ state: 'concluding' }), 'again', NOW).outcome).toBe('unchanged');
    expectRejection(
      forceConclusion(newSnapshot({ state: 'concluded', currentSpeaker: null }), 'late', NOW),
      'INVALID_STATE',
      'GROUP_CONCLUDED',
    );
    expectRejection(
      forceConclusion(newSnapshot({ state: 'failed', currentSpeaker: null }), 'late', NOW),
      'INVALID_STATE',
      'GROUP_CLOSED',
    );
  });
});

describe('closeGroup', () => {
  it.each(['discussing', 'awaiting_sync_tasks', 'paused', 'concluding'] as const)(
    'closes a group in %s: failed, nobody speaks, nothing awaited',
    (state) => {
      const transition = expectTransition(
        closeGroup(
          newSnapshot({ state, awaitingTaskIds: ['30000000-0000-4000-8000-000000000001'] }),
          'goal canceled',
          NOW,
        ),
      );
      expect(transition.fields).toMatchObject({
        state: 'failed',
        currentSpeaker: null,
        turnDeadline: null,
        awaitingTaskIds: [],
      });
      expect(transition.messages[0].content).toContain('goal canceled');
      expect(transition.stateChange).toEqual({ previousState: state, reason: 'closed: goal canceled' });
      expect(transition.grant).toBeNull();
    },
  );

  it('leaves a concluded group concluded, with its conclusion', () => {
    const concluded = newSnapshot({ state: 'concluded', currentSpeaker: null, turnDeadline: null, conclusion: '42' });
    expect(closeGroup(concluded, 'goal canceled', NOW)).toEqual({ outcome: 'unchanged', why: 'already concluded' });
  });

  it('is a no-op on a closed group, whose moves are then refused', () => {
    const closed = newSnapshot({ state: 'failed', currentSpeaker: null, turnDeadline: null });
    expect(closeGroup(closed, 'again', NOW).outcome).toBe('unchanged');
    expectRejection(proposeMove(closed, newMove(), NOW, mintTaskId), 'INVALID_STATE', 'GROUP_CLOSED');
  });
});

describe('timeOutTurn', () => {
  const overdue = new Date(NOW.getTime() - 1);

  it('does nothing before the deadline, or while the person is asked', () => {
    expect(timeOutTurn(newSnapshot(), NOW).outcome).toBe('unchanged');
    expect(timeOutTurn(newSnapshot({ currentSpeaker: 'user', turnDeadline: null }), NOW).outcome).toBe('unchanged');
  });

  it('passes an overdue turn round-robin to the next member with a system notice', () => {
    const transition = expectTransition(
      timeOutTurn(newSnapshot({ currentSpeaker: BOB, turn: 3, turnDeadline: overdue }), NOW),
    );
    expect(transition.fields).toMatchObject({ currentSpeaker: CAROL, turn: 4, turnDeadline: NEXT_DEADLINE });
    expect(transition.messages).toEqual([
      expect.objectContaining({
        type: 'system',
        senderId: 'system',
        content: `bob did not move within ${TIMEOUT_SECONDS} s (turn 3); the turn passes to carol.`,
      }),
    ]);
    expect(transition.grant).toMatchObject({
      speakerId: CAROL,
      reason: "bob's turn 3 timed out; the turn passed to you.",
    });
  });

  it('wraps around from the last member to the first, and a lone member gets its turn again', () => {
    const wrapped = expectTransition(timeOutTurn(newSnapshot({ currentSpeaker: CAROL, turnDeadline: overdue }), NOW));
    expect(wrapped.fields.currentSpeaker).toBe(LEADER);
    const alone = expectTransition(
      timeOutTurn(
        newSnapshot({ members: [{ agentId: LEADER, name: 'lead', reason: null }], turnDeadline: overdue }),
        NOW,
      ),
    );
    expect(alone.fields).toMatchObject({ currentSpeaker: LEADER, turn: 2 });
  });

  it('a time-out past the turn limit makes the group concluding', () => {
    const transition = expectTransition(
      timeOutTurn(newSnapshot({ currentSpeaker: BOB, turn: 12, turnDeadline: overdue }), NOW),
    );
    expect(transition.fields).toMatchObject({ state: 'concluding', currentSpeaker: LEADER, turn: 13 });
    expect(transition.grant?.mustConclude).toBe(true);
  });

  it('a timed-out must-conclude turn concludes the group with a system summary of the task results', () => {
    const snapshot = newSnapshot({
      state: 'concluding',
      turn: 13,
      turnDeadline: overdue,
      tasks: [
        newTask({ state: 'completed', result: 'The answer is 2.' }),
        newTask({
          taskId: '30000000-0000-4000-8000-000000000002',
          abstract: 'Find sources',
          state: 'failed',
          result: 'offline',
        }),
      ],
    });
    const transition = expectTransition(timeOutTurn(snapshot, NOW));
    expect(transition.fields).toMatchObject({ state: 'concluded', currentSpeaker: null, turnDeadline: null });
    const [message] = transition.messages;
    expect(message).toMatchObject({ type: 'conclude', senderId: 'system' });
    expect(message.content).toContain('the chat service concluded the group itself');
    expect(message.content).toContain('- Run the numbers (bob, completed): The answer is 2.');
    expect(message.content).toContain('- Find sources (bob, failed): offline');
    expect(transition.fields.conclusion).toBe(message.content);
    expect(transition.stateChange?.reason).toContain('did not conclude in time');
  });

  it('says so when there were no tasks to summarize', () => {
    const transition = expectTransition(timeOutTurn(newSnapshot({ state: 'concluding', turnDeadline: overdue }), NOW));
    expect(transition.fields.conclusion).toContain('No task was assigned in this group.');
  });
});

describe('applyTaskUpdate', () => {
  it('records working with a progress notice, and ignores the same report again', () => {
    const task = newTask({ state: 'submitted', sourceUpdatedAt: null });
    const snapshot = newSnapshot({ tasks: [task] });
    const update = newUpdate(task, { state: 'working', result: null, statusMessage: 'started' });
    const transition = expectTransition(applyTaskUpdate(snapshot, update, NOW));
    expect(transition.ledger).toEqual([
      expect.objectContaining({
        taskId: task.taskId,
        state: 'working',
        statusMessage: 'started',
        sourceUpdatedAt: update.updatedAt,
      }),
    ]);
    expect(transition.messages).toEqual([
      expect.objectContaining({
        type: 'progress',
        senderId: 'system',
        content: 'bob is working on “Run the numbers” (async): started',
        tasks: transition.ledger,
      }),
    ]);
    expect(transition.fields).toMatchObject({ state: 'discussing', currentSpeaker: LEADER, turn: 1 });
    expect(transition.grant).toBeNull();

    const redelivered = applyTaskUpdate(newSnapshot({ tasks: transition.ledger }), update, NOW);
    expect(redelivered).toEqual({ outcome: 'unchanged', why: 'update already applied' });
  });

  it('writes a progress note for a new status message of a working task', () => {
    const task = newTask({ state: 'working', statusMessage: 'started' });
    const transition = expectTransition(
      applyTaskUpdate(
        newSnapshot({ tasks: [task] }),
        newUpdate(task, { state: 'working', result: null, statusMessage: 'half way' }),
        NOW,
      ),
    );
    expect(transition.messages[0]).toMatchObject({
      type: 'progress',
      content: 'Progress on “Run the numbers” from bob: half way',
    });
  });

  it('records a submitted report silently', () => {
    const task = newTask({ state: 'submitted', sourceUpdatedAt: null, statusMessage: null });
    const transition = expectTransition(
      applyTaskUpdate(
        newSnapshot({ tasks: [task] }),
        newUpdate(task, { state: 'submitted', result: null, statusMessage: 'queued' }),
        NOW,
      ),
    );
    expect(transition.messages).toEqual([]);
    expect(transition.ledger[0]).toMatchObject({ state: 'submitted', statusMessage: 'queued' });
  });

  it('writes a result notice for a completed task and bounds the ledger copy', () => {
    const task = newTask();
    const long = 'x'.repeat(LEDGER_RESULT_MAX + 500);
    const transition = expectTransition(
      applyTaskUpdate(newSnapshot({ tasks: [task] }), newUpdate(task, { result: long }), NOW),
    );
    expect(transition.ledger[0].state).toBe('completed');
    expect(transition.ledger[0].result).toHaveLength(LEDGER_RESULT_MAX);
    expect(transition.messages[0]).toMatchObject({ type: 'result', senderId: 'system' });
    expect(transition.messages[0].content).toContain('bob completed “Run the numbers” (async).');
  });

  it.each([
    ['failed', 'assignee went offline', 'bob did not complete “Run the numbers” (failed): assignee went offline'],
    ['rejected', 'not my skill', 'bob did not complete “Run the numbers” (rejected): not my skill'],
    ['canceled', 'goal canceled', '“Run the numbers” (bob) was canceled: goal canceled'],
  ] as const)('writes a result notice for a %s task with the reason in the ledger', (state, reason, content) => {
    const task = newTask();
    const transition = expectTransition(
      applyTaskUpdate(
        newSnapshot({ tasks: [task] }),
        newUpdate(task, { state, result: null, statusMessage: reason }),
        NOW,
      ),
    );
    expect(transition.ledger[0]).toMatchObject({ state, result: reason });
    expect(transition.messages[0]).toMatchObject({ type: 'result', content });
  });

  it('ignores reports on a finished task and stale reports', () => {
    const done = newTask({ state: 'completed', result: 'ok' });
    expect(applyTaskUpdate(newSnapshot({ tasks: [done] }), newUpdate(done, { state: 'working' }), NOW)).toEqual({
      outcome: 'unchanged',
      why: 'task already completed',
    });
    const working = newTask({ state: 'working', sourceUpdatedAt: '2026-01-01T12:00:00.000Z' });
    const stale = newUpdate(working, { state: 'submitted', updatedAt: '2026-01-01T11:00:00.000Z' });
    expect(applyTaskUpdate(newSnapshot({ tasks: [working] }), stale, NOW)).toEqual({
      outcome: 'unchanged',
      why: 'stale update',
    });
  });

  it('hands the turn back to the assigner when the last sync task finishes', () => {
    const first = newTask({ mode: 'sync' });
    const second = newTask({ mode: 'sync', taskId: '30000000-0000-4000-8000-000000000002', assigneeId: CAROL });
    const waiting = newSnapshot({
      state: 'awaiting_sync_tasks',
      currentSpeaker: null,
      turnDeadline: null,
      turn: 2,
      awaitingTaskIds: [first.taskId, second.taskId],
      resumeSpeakerId: BOB,
      tasks: [first, second],
    });
    const one = expectTransition(applyTaskUpdate(waiting, newUpdate(first), NOW));
    expect(one.fields).toMatchObject({
      state: 'awaiting_sync_tasks',
      currentSpeaker: null,
      awaitingTaskIds: [second.taskId],
    });
    expect(one.grant).toBeNull();

    const afterOne = { ...waiting, ...one.fields, tasks: [one.ledger[0], second] };
    const both = expectTransition(
      applyTaskUpdate(afterOne, newUpdate(second, { state: 'failed', statusMessage: 'x' }), NOW),
    );
    expect(both.fields).toMatchObject({
      state: 'discussing',
      currentSpeaker: BOB,
      turn: 3,
      awaitingTaskIds: [],
      resumeSpeakerId: null,
      turnDeadline: NEXT_DEADLINE,
    });
    expect(both.grant).toMatchObject({ speakerId: BOB, mustConclude: false });
    expect(both.grant!.reason).toContain('sync tasks you assigned have finished');
    expect(both.stateChange).toEqual({ previousState: 'awaiting_sync_tasks', reason: 'all sync tasks finished' });
  });

  it('hands the turn back to the pauser when the awaited tasks finish', () => {
    const task = newTask();
    const paused = newSnapshot({
      state: 'paused',
      currentSpeaker: null,
      turnDeadline: null,
      awaitingTaskIds: [task.taskId],
      resumeSpeakerId: CAROL,
      tasks: [task],
    });
    const transition = expectTransition(applyTaskUpdate(paused, newUpdate(task), NOW));
    expect(transition.fields).toMatchObject({ state: 'discussing', currentSpeaker: CAROL, turn: 2 });
    expect(transition.grant!.reason).toContain('tasks you paused for have finished');
    expect(transition.stateChange).toEqual({ previousState: 'paused', reason: 'the awaited tasks finished' });
  });

  it('resuming past the turn limit gives the leader a must-conclude turn', () => {
    const task = newTask();
    const paused = newSnapshot({
      state: 'paused',
      currentSpeaker: null,
      turnDeadline: null,
      turn: 12,
      awaitingTaskIds: [task.taskId],
      resumeSpeakerId: CAROL,
      tasks: [task],
    });
    const transition = expectTransition(applyTaskUpdate(paused, newUpdate(task), NOW));
    expect(transition.fields).toMatchObject({ state: 'concluding', currentSpeaker: LEADER, turn: 13 });
    expect(transition.stateChange).toEqual({ previousState: 'paused', reason: 'turn limit reached (12 turns)' });
  });

  it('an async result arriving while discussing is an interruption: notice only, the speaker keeps the turn', () => {
    const task = newTask();
    const snapshot = newSnapshot({ currentSpeaker: CAROL, turn: 5, tasks: [task] });
    const transition = expectTransition(applyTaskUpdate(snapshot, newUpdate(task), NOW));
    expect(transition.fields).toMatchObject({ state: 'discussing', currentSpeaker: CAROL, turn: 5 });
    expect(transition.messages[0].type).toBe('result');
    expect(transition.grant).toBeNull();
  });

  it('ignores (and flags) a task the ledger does not know', () => {
    const task = newTask({ taskId: '30000000-0000-4000-8000-000000000009' });
    expect(applyTaskUpdate(newSnapshot({ tasks: [newTask()] }), newUpdate(task), NOW)).toMatchObject({
      outcome: 'unchanged',
      suspicious: true,
    });
  });

  it('still records results after the group concluded, without reopening it', () => {
    const task = newTask();
    const concluded = newSnapshot({ state: 'concluded', currentSpeaker: null, turnDeadline: null, tasks: [task] });
    const transition = expectTransition(
      applyTaskUpdate(
        concluded,
        newUpdate(task, { state: 'canceled', result: null, statusMessage: 'goal completed' }),
        NOW,
      ),
    );
    expect(transition.fields.state).toBe('concluded');
    expect(transition.stateChange).toBeNull();
  });
});

describe('a whole conversation', () => {
  /** Applies a transition's fields and ledger to a snapshot, as the service does after a commit. */
  function apply(snapshot: ConversationSnapshot, transition: Transition): ConversationSnapshot {
    const tasks = [...snapshot.tasks];
    for (const row of transition.ledger) {
      const index = tasks.findIndex((task) => task.taskId === row.taskId);
      if (index >= 0) tasks[index] = row;
      else tasks.push(row);
    }
    return { ...snapshot, ...transition.fields, tasks };
  }

  it('runs async tasks, a pause, a sync task to the writer, and a conclusion', () => {
    let group = newSnapshot();
    const assign = expectTransition(
      proposeMove(
        group,
        newMove({
          type: 'async_task_assign',
          nextSpeaker: LEADER,
          tasks: [
            { assigneeId: BOB, description: 'compute', abstract: 'compute' },
            { assigneeId: CAROL, description: 'research', abstract: 'research' },
          ],
        }),
        NOW,
        mintTaskId,
      ),
    );
    group = apply(group, assign);
    const [compute, research] = assign.ledger;
    group = apply(
      group,
      expectTransition(
        proposeMove(
          group,
          newMove({ turn: 2, type: 'pause', awaitTaskIds: [compute.taskId, research.taskId] }),
          NOW,
          mintTaskId,
        ),
      ),
    );
    expect(group.state).toBe('paused');
    group = apply(group, expectTransition(applyTaskUpdate(group, newUpdate(compute), NOW)));
    expect(group.state).toBe('paused');
    group = apply(group, expectTransition(applyTaskUpdate(group, newUpdate(research), NOW)));
    expect(group).toMatchObject({ state: 'discussing', currentSpeaker: LEADER, turn: 3 });

    const sync = expectTransition(
      proposeMove(
        group,
        newMove({
          turn: 3,
          type: 'sync_task_assign',
          tasks: [{ assigneeId: CAROL, description: 'write', abstract: 'report' }],
        }),
        NOW,
        mintTaskId,
      ),
    );
    group = apply(group, sync);
    expect(group.state).toBe('awaiting_sync_tasks');
    group = apply(
      group,
      expectTransition(applyTaskUpdate(group, newUpdate(sync.ledger[0], { result: '# Report' }), NOW)),
    );
    expect(group).toMatchObject({ state: 'discussing', currentSpeaker: LEADER, turn: 4 });

    const done = expectTransition(
      proposeMove(group, newMove({ turn: 4, type: 'conclude', content: '# Report' }), NOW, mintTaskId),
    );
    expect(done.fields).toMatchObject({ state: 'concluded', conclusion: '# Report' });
  });
});
