import { randomUUID } from 'node:crypto';
import {
  ChatHealthV1,
  CloseGroupV1,
  CreateGroupV1,
  ForceConclusionV1,
  GetGroupV1,
  GroupStateChangedV1,
  ListMessagesV1,
  MessagePostedV1,
  PostUserMessageV1,
  ProposeMoveV1,
  TasksAssignedV1,
  TurnGrantedV1,
  type RequestContract,
} from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import {
  accepted,
  contents,
  move,
  newMember,
  openGroup,
  startChat,
  type ChatHarness,
} from '../testing/chat-test-kit.js';

/**
 * The conversation over the real wire: members are plain NATS clients proposing moves and watching the chat's
 * events; the chat runs against a real nats-server and a real database.
 */
describe('group chat moves (real NATS, real database)', () => {
  let chat: ChatHarness;

  beforeAll(async () => {
    chat = await startChat();
  });

  afterAll(async () => {
    await chat?.stop();
  });

  describe('opening a group', () => {
    it('opens discussing at turn 1, posts the opening message and grants the leader the first turn', async () => {
      const { group, lead, bob, carol } = await openGroup(chat, { maxTurns: 6, turnTimeoutSeconds: 30 });
      expect(group).toMatchObject({
        state: 'discussing',
        leaderId: lead.agentId,
        currentSpeaker: lead.agentId,
        turn: 1,
        maxTurns: 6,
        awaitingTaskIds: [],
        tasks: [],
        conclusion: null,
        lastSeq: 1,
      });
      expect(group.members.map((member) => member.name)).toEqual(['lead', 'bob', 'carol']);
      const grant = await chat.events.turnGranted(group.id, 1);
      expect(grant).toMatchObject({
        goalId: group.goalId,
        speakerId: lead.agentId,
        leaderId: lead.agentId,
        mustConclude: false,
        maxTurns: 6,
        members: [lead, bob, carol],
        tasks: [],
      });
      expect(Date.parse(grant.deadline) - Date.now()).toBeGreaterThan(20_000);
      expect(grant.recentMessages).toEqual([expect.objectContaining({ seq: 1, type: 'system', senderId: 'system' })]);
      const posted = await chat.events.waitFor(MessagePostedV1, (event) => event.message.groupId === group.id);
      expect(posted).toMatchObject({ goalId: group.goalId, message: { seq: 1, turn: 1 } });
    });

    it('returns the existing group when the same goal asks again (a retried request)', async () => {
      const { group, lead } = await openGroup(chat);
      const again = await chat.ok(CreateGroupV1, {
        goalId: group.goalId,
        goal: 'something else',
        members: [lead],
        leaderId: lead.agentId,
        maxTurns: 12,
        turnTimeoutSeconds: 60,
      });
      expect(again.id).toBe(group.id);
      expect(again.members).toHaveLength(3);
      expect(chat.events.of(TurnGrantedV1, (event) => event.groupId === group.id)).toHaveLength(1);
    });

    it('refuses a leader who is not a member, and repeated members', async () => {
      const [a, b] = [newMember('a'), newMember('b')];
      const base = { goalId: randomUUID(), goal: 'g', maxTurns: 4, turnTimeoutSeconds: 10 };
      const noLeader = await chat.call(CreateGroupV1, { ...base, members: [a], leaderId: b.agentId });
      expect(noLeader).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      const repeated = await chat.call(CreateGroupV1, { ...base, members: [a, b, a], leaderId: a.agentId });
      expect(repeated).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      expect((await chat.call(GetGroupV1, { groupId: randomUUID() })).ok).toBe(false);
    });
  });

  describe('moves and transitions', () => {
    it('discussion: the named member gets the next turn, and the reply carries the message and the group', async () => {
      const { group, lead, bob } = await openGroup(chat);
      const usage = { promptTokens: 12, completionTokens: 3, modelCalls: 1 };
      const reply = await accepted(chat, group, lead, {
        type: 'discussion',
        content: 'Bob, please check the numbers.',
        nextSpeaker: bob.agentId,
        usage,
      });
      expect(reply.message).toMatchObject({
        seq: 2,
        type: 'discussion',
        senderId: lead.agentId,
        senderName: 'lead',
        nextSpeaker: bob.agentId,
        turn: 1,
      });
      expect(reply.group).toMatchObject({ state: 'discussing', currentSpeaker: bob.agentId, turn: 2, lastSeq: 2 });
      const grant = await chat.events.turnGranted(group.id, 2);
      expect(grant).toMatchObject({
        speakerId: bob.agentId,
        mustConclude: false,
        reason: 'lead named you to speak next.',
      });
      expect(grant.recentMessages.map((message) => message.seq)).toEqual([1, 2]);
      const posted = await chat.events.waitFor(
        MessagePostedV1,
        (event) => event.message.groupId === group.id && event.message.seq === 2,
      );
      expect(posted.usage).toEqual(usage);
    });

    it('async_task_assign: chat mints task ids, publishes TasksAssignedV1 and the discussion goes on', async () => {
      const { group, lead, bob, carol } = await openGroup(chat);
      const reply = await accepted(chat, group, lead, {
        type: 'async_task_assign',
        content: 'Background work, please.',
        nextSpeaker: carol.agentId,
        tasks: [
          { assigneeId: bob.agentId, description: 'Compute `1+1`', abstract: 'compute' },
          { assigneeId: carol.agentId, description: 'Find a source', abstract: 'research' },
        ],
      });
      expect(reply.group).toMatchObject({ state: 'discussing', currentSpeaker: carol.agentId, turn: 2 });
      expect(reply.group.tasks).toEqual([
        expect.objectContaining({ assigneeId: bob.agentId, assigneeName: 'bob', mode: 'async', state: 'submitted' }),
        expect.objectContaining({ assigneeId: carol.agentId, abstract: 'research', assignerId: lead.agentId }),
      ]);
      const assigned = await chat.events.waitFor(TasksAssignedV1, (event) => event.groupId === group.id);
      expect(assigned).toMatchObject({
        goalId: group.goalId,
        assignerId: lead.agentId,
        mode: 'async',
        messageId: reply.message.id,
        tasks: reply.group.tasks,
        drafts: [
          { assigneeId: bob.agentId, description: 'Compute `1+1`', abstract: 'compute' },
          { assigneeId: carol.agentId, description: 'Find a source', abstract: 'research' },
        ],
      });
      expect(reply.message.tasks).toEqual(reply.group.tasks);
      const grant = await chat.events.turnGranted(group.id, 2);
      expect(grant.tasks).toEqual(reply.group.tasks);
    });

    it('sync_task_assign: the group waits with nobody speaking, and says so when the state changes', async () => {
      const { group, lead, bob } = await openGroup(chat);
      const reply = await accepted(chat, group, lead, {
        type: 'sync_task_assign',
        content: 'Wait for this.',
        tasks: [{ assigneeId: bob.agentId, description: 'Compute', abstract: 'compute' }],
      });
      expect(reply.group).toMatchObject({
        state: 'awaiting_sync_tasks',
        currentSpeaker: null,
        turnDeadline: null,
        awaitingTaskIds: [reply.group.tasks[0].taskId],
      });
      const changed = await chat.events.waitFor(GroupStateChangedV1, (event) => event.group.id === group.id);
      expect(changed).toMatchObject({ previousState: 'discussing', group: { state: 'awaiting_sync_tasks' } });
      await chat.events.waitFor(TasksAssignedV1, (event) => event.groupId === group.id && event.mode === 'sync');
    });

    it('conclude: the group is concluded and the state change carries the conclusion', async () => {
      const { group, lead } = await openGroup(chat);
      const reply = await accepted(chat, group, lead, { type: 'conclude', content: '1+1 = 2.' });
      expect(reply.group).toMatchObject({ state: 'concluded', conclusion: '1+1 = 2.', currentSpeaker: null });
      const changed = await chat.events.waitFor(
        GroupStateChangedV1,
        (event) => event.group.id === group.id && event.group.state === 'concluded',
      );
      expect(changed).toMatchObject({
        previousState: 'discussing',
        reason: 'lead concluded',
        group: { conclusion: '1+1 = 2.' },
      });
      expect(chat.events.of(TurnGrantedV1, (event) => event.groupId === group.id)).toHaveLength(1);
    });
  });

  describe('invalid moves are rejected with a reason the member can act on', () => {
    it('rejects each broken rule with its code and rule', async () => {
      const { group, lead, bob, carol } = await openGroup(chat);
      const stranger = newMember('stranger');
      const expectRejected = async (reply: ReturnType<typeof move>, code: string, rule: string) => {
        expect(await reply).toMatchObject({ ok: false, error: { code, details: { rule }, retryable: false } });
      };
      await expectRejected(
        move(chat, group, stranger, { type: 'discussion', nextSpeaker: bob.agentId }),
        'FORBIDDEN',
        'NOT_A_MEMBER',
      );
      await expectRejected(
        move(chat, group, bob, { type: 'discussion', nextSpeaker: carol.agentId }),
        'INVALID_STATE',
        'NOT_YOUR_TURN',
      );
      await expectRejected(
        move(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId, turn: 7 }),
        'INVALID_STATE',
        'STALE_TURN',
      );
      await expectRejected(
        move(chat, group, lead, { type: 'discussion', nextSpeaker: stranger.agentId }),
        'INVALID_STATE',
        'UNKNOWN_NEXT_SPEAKER',
      );
      await expectRejected(move(chat, group, lead, { type: 'discussion' }), 'INVALID_STATE', 'NEXT_SPEAKER_REQUIRED');
      const forStranger = await move(chat, group, lead, {
        type: 'async_task_assign',
        nextSpeaker: bob.agentId,
        tasks: [{ assigneeId: stranger.agentId, description: 'd', abstract: 'for a stranger' }],
      });
      await expectRejected(Promise.resolve(forStranger), 'INVALID_STATE', 'ASSIGNEE_NOT_MEMBER');
      if (!forStranger.ok) expect(forStranger.error.message).toContain('not a member');
      await expectRejected(
        move(chat, group, lead, { type: 'pause', awaitTaskIds: [randomUUID()] }),
        'INVALID_STATE',
        'UNKNOWN_TASK',
      );
      // Nothing of the rejected moves was written: the leader still holds turn 1, with only the opening message.
      const current = await chat.ok(GetGroupV1, { groupId: group.id });
      expect(current).toMatchObject({ turn: 1, currentSpeaker: lead.agentId, lastSeq: 1, tasks: [] });
    });

    it('rejects a move for a turn that is over (stale turn) once the turn passed on', async () => {
      const { group, lead, bob, carol } = await openGroup(chat);
      await accepted(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      const late = await move(chat, group, lead, { type: 'discussion', nextSpeaker: carol.agentId, turn: 1 });
      expect(late).toMatchObject({ ok: false, error: { code: 'INVALID_STATE', details: { rule: 'STALE_TURN' } } });
      if (!late.ok) expect(late.error.message).toContain('Turn 1 is over');
    });

    it('rejects a conclusion, or any other move, while sync tasks are open', async () => {
      const { group, lead, bob } = await openGroup(chat);
      await accepted(chat, group, lead, {
        type: 'sync_task_assign',
        tasks: [{ assigneeId: bob.agentId, description: 'Compute', abstract: 'compute' }],
      });
      const conclusion = await move(chat, group, lead, { type: 'conclude', content: 'too early' });
      expect(conclusion).toMatchObject({
        ok: false,
        error: { code: 'INVALID_STATE', details: { rule: 'SYNC_TASKS_OPEN' } },
      });
      const other = await move(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      expect(other).toMatchObject({ ok: false, error: { details: { rule: 'AWAITING_SYNC_TASKS' } } });
    });
  });

  describe('turn limit', () => {
    it('forces a conclusion: concluding, a must-conclude turn for the leader that accepts only conclude', async () => {
      const { group, lead, bob, carol } = await openGroup(chat, { maxTurns: 2 });
      await accepted(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      const second = await accepted(chat, { ...group, turn: 2 }, bob, {
        type: 'discussion',
        nextSpeaker: carol.agentId,
      });
      expect(second.group).toMatchObject({ state: 'concluding', currentSpeaker: lead.agentId, turn: 3 });
      const grant = await chat.events.turnGranted(group.id, 3);
      expect(grant).toMatchObject({ speakerId: lead.agentId, mustConclude: true });
      const changed = await chat.events.waitFor(
        GroupStateChangedV1,
        (event) => event.group.id === group.id && event.group.state === 'concluding',
      );
      expect(changed.reason).toBe('turn limit reached (2 turns)');
      expect(grant.recentMessages.at(-1)).toMatchObject({
        type: 'system',
        content: expect.stringContaining('Turn limit reached'),
      });

      const talk = await move(chat, { ...group, turn: 3 }, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      expect(talk).toMatchObject({ ok: false, error: { code: 'INVALID_STATE', details: { rule: 'MUST_CONCLUDE' } } });
      const done = await accepted(chat, { ...group, turn: 3 }, lead, { type: 'conclude', content: 'Final answer: 2.' });
      expect(done.group).toMatchObject({ state: 'concluded', conclusion: 'Final answer: 2.' });
    });
  });

  describe('turn timeout', () => {
    it('passes an overdue turn round-robin with a system message; the late move is stale', async () => {
      const { group, lead, bob } = await openGroup(chat, { turnTimeoutSeconds: 1 });
      const grant = await chat.events.turnGranted(group.id, 2);
      expect(grant).toMatchObject({ speakerId: bob.agentId, mustConclude: false });
      expect(grant.reason).toContain("lead's turn 1 timed out");
      expect(grant.recentMessages.at(-1)).toMatchObject({
        type: 'system',
        content: 'lead did not move within 1 s (turn 1); the turn passes to bob.',
      });
      const late = await move(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      expect(late).toMatchObject({ ok: false, error: { code: 'INVALID_STATE', details: { rule: 'STALE_TURN' } } });
    });

    it('a timed-out must-conclude turn concludes the group with a system summary, and says so', async () => {
      const { group } = await openGroup(chat, { turnTimeoutSeconds: 1 });
      await chat.ok(ForceConclusionV1, { groupId: group.id, reason: 'token budget reached' });
      const concluded = await chat.events.waitFor(
        GroupStateChangedV1,
        (event) => event.group.id === group.id && event.group.state === 'concluded',
      );
      expect(concluded.reason).toContain('did not conclude in time');
      expect(concluded.group.conclusion).toContain('the chat service concluded the group itself');
      expect(concluded.group.conclusion).toContain('No task was assigned');
      const { items } = await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 0, limit: 100 });
      expect(items.at(-1)).toMatchObject({ type: 'conclude', senderId: 'system' });
    });
  });

  describe('the person', () => {
    it('is asked a question (no deadline runs), and the answer gives the turn back to the member who asked', async () => {
      const { group, lead, bob } = await openGroup(chat, { turnTimeoutSeconds: 1 });
      const control = await openGroup(chat, { turnTimeoutSeconds: 1 });
      const asked = await accepted(chat, group, lead, {
        type: 'discussion',
        content: 'Which unit system should we use?',
        nextSpeaker: 'user',
      });
      expect(asked.group).toMatchObject({ currentSpeaker: 'user', turnDeadline: null, turn: 1 });
      // The control group, opened just as long ago with the same timeout, times out; the question does not.
      await chat.events.turnGranted(control.group.id, 2);
      expect(await chat.ok(GetGroupV1, { groupId: group.id })).toMatchObject({ currentSpeaker: 'user', turn: 1 });
      const refused = await move(chat, group, bob, { type: 'discussion', nextSpeaker: lead.agentId });
      expect(refused).toMatchObject({ ok: false, error: { details: { rule: 'WAITING_FOR_USER' } } });

      const answer = await chat.ok(PostUserMessageV1, { groupId: group.id, content: 'Metric, please.', author: 'ana' });
      expect(answer.message).toMatchObject({
        type: 'user',
        senderId: 'user',
        senderName: 'ana',
        content: 'Metric, please.',
      });
      expect(answer.group).toMatchObject({ currentSpeaker: lead.agentId, turn: 2 });
      const grant = await chat.events.turnGranted(group.id, 2);
      expect(grant).toMatchObject({ speakerId: lead.agentId, reason: 'ana answered your question.' });
    });

    it('re-opens a concluded group: discussing, the leader speaks, the turn limit grows by the original', async () => {
      const { group, lead } = await openGroup(chat, { maxTurns: 4 });
      await accepted(chat, group, lead, { type: 'conclude', content: 'First answer.' });
      const follow = await chat.ok(PostUserMessageV1, { groupId: group.id, content: 'And in French?', author: 'user' });
      expect(follow.group).toMatchObject({
        state: 'discussing',
        currentSpeaker: lead.agentId,
        turn: 2,
        maxTurns: 8,
        conclusion: null,
      });
      const reopened = await chat.events.waitFor(
        GroupStateChangedV1,
        (event) => event.group.id === group.id && event.previousState === 'concluded',
      );
      expect(reopened.group.state).toBe('discussing');
      expect(await chat.events.turnGranted(group.id, 2)).toMatchObject({
        speakerId: lead.agentId,
        mustConclude: false,
      });
      const again = await accepted(chat, { ...group, turn: 2 }, lead, {
        type: 'conclude',
        content: 'En français : 2.',
      });
      expect(again.group).toMatchObject({ state: 'concluded', conclusion: 'En français : 2.' });
    });

    it('a message while an agent speaks only joins the history', async () => {
      const { group, lead } = await openGroup(chat);
      const posted = await chat.ok(PostUserMessageV1, {
        groupId: group.id,
        content: 'Take your time.',
        author: 'user',
      });
      expect(posted.group).toMatchObject({ currentSpeaker: lead.agentId, turn: 1, lastSeq: 2 });
    });
  });

  describe('forced conclusion and close', () => {
    it('ForceConclusionV1 gives the leader a must-conclude turn; forcing again changes nothing', async () => {
      const { group, lead, bob } = await openGroup(chat);
      await accepted(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      const forced = await chat.ok(ForceConclusionV1, { groupId: group.id, reason: 'time budget of 60 s reached' });
      expect(forced).toMatchObject({ state: 'concluding', currentSpeaker: lead.agentId, turn: 3 });
      const grant = await chat.events.turnGranted(group.id, 3);
      expect(grant).toMatchObject({ speakerId: lead.agentId, mustConclude: true });
      expect(grant.reason).toContain('time budget of 60 s reached');
      const again = await chat.ok(ForceConclusionV1, { groupId: group.id, reason: 'again' });
      expect(again).toMatchObject({ state: 'concluding', turn: 3, lastSeq: forced.lastSeq });
      await accepted(chat, { ...group, turn: 3 }, lead, { type: 'conclude', content: 'What we have.' });
      const late = await chat.call(ForceConclusionV1, { groupId: group.id, reason: 'late' });
      expect(late).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
    });

    it('CloseGroupV1 fails the group: no more turns, later moves and messages are INVALID_STATE', async () => {
      const { group, lead, bob } = await openGroup(chat);
      const closed = await chat.ok(CloseGroupV1, { groupId: group.id, reason: 'goal canceled' });
      expect(closed).toMatchObject({ state: 'failed', currentSpeaker: null, turnDeadline: null });
      const changed = await chat.events.waitFor(
        GroupStateChangedV1,
        (event) => event.group.id === group.id && event.group.state === 'failed',
      );
      expect(changed.reason).toBe('closed: goal canceled');
      const moveAfter = await move(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      expect(moveAfter).toMatchObject({
        ok: false,
        error: { code: 'INVALID_STATE', details: { rule: 'GROUP_CLOSED' } },
      });
      const message = await chat.call(PostUserMessageV1, { groupId: group.id, content: 'hello?' });
      expect(message).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
      expect(await chat.ok(CloseGroupV1, { groupId: group.id, reason: 'again' })).toMatchObject({
        state: 'failed',
        lastSeq: closed.lastSeq,
      });
      expect(chat.events.of(TurnGrantedV1, (event) => event.groupId === group.id)).toHaveLength(1);
    });
  });

  describe('history', () => {
    it('pages messages in seq order and bounds the window a turn grant carries', async () => {
      const { group, lead, bob } = await openGroup(chat);
      for (let index = 0; index < 14; index++) {
        await chat.ok(PostUserMessageV1, { groupId: group.id, content: `note ${index}`, author: 'user' });
      }
      await accepted(chat, group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
      const first = await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 0, limit: 10 });
      expect(first.items.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(first.lastSeq).toBe(16);
      const rest = await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 10, limit: 10 });
      expect(rest.items.map((message) => message.seq)).toEqual([11, 12, 13, 14, 15, 16]);
      const grant = await chat.events.turnGranted(group.id, 2);
      expect(grant.recentMessages.map((message) => message.seq)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
      expect((await chat.call(ListMessagesV1, { groupId: randomUUID() })).ok).toBe(false);
    });
  });

  describe('concurrency', () => {
    it('keeps seq gap-free under concurrent proposals: exactly one proposal wins each turn', async () => {
      const { group, lead, bob, carol } = await openGroup(chat);
      const members = [lead, bob, carol];
      let current = group;
      for (let round = 0; round < 6; round++) {
        const speaker = members.find((member) => member.agentId === current.currentSpeaker)!;
        const next = members[(members.indexOf(speaker) + 1) % members.length];
        // The speaker fires four versions of its move at once, and the other members try to jump in.
        const attempts = await Promise.all([
          ...[1, 2, 3, 4].map((attempt) =>
            move(chat, current, speaker, { type: 'discussion', nextSpeaker: next.agentId, content: `try ${attempt}` }),
          ),
          ...members
            .filter((member) => member !== speaker)
            .map((member) => move(chat, current, member, { type: 'discussion', nextSpeaker: speaker.agentId })),
        ]);
        const winners = attempts.filter((reply) => reply.ok);
        expect(winners).toHaveLength(1);
        const rules = attempts.flatMap((reply) => (reply.ok ? [] : [(reply.error.details as { rule: string }).rule]));
        expect(rules.every((rule) => ['STALE_TURN', 'NOT_YOUR_TURN'].includes(rule))).toBe(true);
        current = (winners[0] as { ok: true; data: { group: typeof group } }).data.group;
      }
      const { items, lastSeq } = await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 0, limit: 100 });
      expect(items.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(lastSeq).toBe(7);
      expect(contents(items).slice(1)).toEqual([
        '2:discussion:lead',
        '3:discussion:bob',
        '4:discussion:carol',
        '5:discussion:lead',
        '6:discussion:bob',
        '7:discussion:carol',
      ]);
      // Observers saw each seq exactly once, in order, and one grant per turn.
      await expectEventually(
        () => chat.events.of(MessagePostedV1, (event) => event.message.groupId === group.id).length === 7,
      );
      const seqs = chat.events
        .of(MessagePostedV1, (event) => event.message.groupId === group.id)
        .map((e) => e.message.seq);
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const turns = chat.events.of(TurnGrantedV1, (event) => event.groupId === group.id).map((event) => event.turn);
      expect(turns).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });
  });

  describe('malformed payloads', () => {
    const subjects: Array<RequestContract<unknown, unknown>> = [
      CreateGroupV1,
      GetGroupV1,
      ListMessagesV1,
      ProposeMoveV1,
      PostUserMessageV1,
      ForceConclusionV1,
      CloseGroupV1,
    ];

    it.each(subjects.map((contract) => [contract.subject, contract] as const))(
      '%s answers broken JSON and schema violations with structured errors and keeps serving',
      async (_subject, contract) => {
        const broken = await chat.call(contract, '{"groupId": nope');
        expect(broken).toMatchObject({ ok: false, error: { code: 'MALFORMED_PAYLOAD', retryable: false } });
        const invalid = await chat.call(contract, { groupId: 'not-a-uuid', turn: 'x', members: 'nobody' });
        expect(invalid).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
        const named = contract === CreateGroupV1 ? 'goalId' : 'groupId';
        if (!invalid.ok) {
          expect(invalid.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ property: named })]));
        }
        expect(await chat.call(contract, '[1,2]')).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
        expect(await chat.ok(ChatHealthV1, {})).toMatchObject({ service: 'chat', status: 'ok', database: 'up' });
      },
    );

    it('rejects a move of an unknown type or with malformed tasks as VALIDATION_FAILED', async () => {
      const { group, lead, bob } = await openGroup(chat);
      const unknownType = await move(chat, group, lead, { type: 'shout' as never, nextSpeaker: bob.agentId });
      expect(unknownType).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      const badTasks = await move(chat, group, lead, {
        type: 'async_task_assign',
        nextSpeaker: bob.agentId,
        tasks: [{ assigneeId: 'bob', description: '', abstract: 'x' }],
      });
      expect(badTasks).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      const current = await chat.ok(GetGroupV1, { groupId: group.id });
      expect(current.lastSeq).toBe(1);
    });
  });
});
