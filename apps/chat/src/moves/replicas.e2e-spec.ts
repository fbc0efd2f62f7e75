import { GetGroupV1, ListMessagesV1, TurnGrantedV1, type GroupV1 } from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import {
  accepted,
  move,
  openGroup,
  reportTask,
  startChat,
  taskOf,
  type ChatHarness,
} from '../testing/chat-test-kit.js';

/**
 * Two replicas of the chat share one database, one queue group and one durable consumer. The row lock keeps each
 * group's transitions serial whichever replica runs them, and SKIP LOCKED hands each overdue turn to one sweeper.
 * (Against PGlite the database serializes transactions anyway; CI's native PostgreSQL makes the locks do the work.)
 */
describe('chat replicas (real NATS, real database)', () => {
  let chat: ChatHarness;

  beforeAll(async () => {
    chat = await startChat();
    await chat.startReplica();
  });

  afterAll(async () => {
    await chat?.stop();
  });

  it('lets exactly one of many concurrent proposals win each turn, whichever replica serves them', async () => {
    const { group, lead, bob, carol } = await openGroup(chat);
    const members = [lead, bob, carol];
    let current: GroupV1 = group;
    for (let round = 0; round < 5; round++) {
      const speaker = members.find((member) => member.agentId === current.currentSpeaker)!;
      const next = members[(members.indexOf(speaker) + 1) % members.length];
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, attempt) =>
          move(chat, current, speaker, {
            type: 'discussion',
            nextSpeaker: next.agentId,
            content: `attempt ${attempt}`,
          }),
        ),
      );
      const winners = replies.filter((reply) => reply.ok);
      expect(winners).toHaveLength(1);
      current = (winners[0] as { ok: true; data: { group: GroupV1 } }).data.group;
    }
    const { items } = await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 0, limit: 100 });
    expect(items.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('times out each overdue turn exactly once across replicas', async () => {
    const groups = await Promise.all([1, 2, 3, 4].map(() => openGroup(chat, { turnTimeoutSeconds: 1 })));
    for (const { group } of groups) await chat.events.turnGranted(group.id, 3);
    for (const { group } of groups) {
      const grants = chat.events.of(TurnGrantedV1, (event) => event.groupId === group.id && event.turn <= 3);
      expect(grants.map((grant) => grant.turn)).toEqual([1, 2, 3]);
      const { items } = await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 0, limit: 100 });
      const timeouts = items.filter((message) => message.content.includes('did not move within'));
      // One notice per timed-out turn, never two for the same turn.
      expect(new Set(timeouts.map((message) => message.turn)).size).toBe(timeouts.length);
      expect(items.map((message) => message.seq)).toEqual(items.map((_, index) => index + 1));
      await chat.ok(GetGroupV1, { groupId: group.id });
    }
  });

  it('shares the task updates: each is applied once', async () => {
    const { group, lead, bob } = await openGroup(chat);
    const assigned = await accepted(chat, group, lead, {
      type: 'sync_task_assign',
      tasks: [1, 2, 3, 4].map((index) => ({
        assigneeId: bob.agentId,
        description: `part ${index}`,
        abstract: `part ${index}`,
      })),
    });
    for (const task of assigned.group.tasks) {
      await reportTask(chat, taskOf(group, task, 'working'));
      await reportTask(chat, taskOf(group, task, 'completed'));
    }
    await chat.events.turnGranted(group.id, 2);
    const results = (await expectEventually(async () => {
      const { items } = await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 0, limit: 100 });
      const found = items.filter((message) => message.type === 'result');
      return found.length >= 4 ? { items, found } : undefined;
    }))!;
    // Both replicas pull from the one durable consumer, so a task's `working` may be handled after its `completed`
    // by the other replica; it is then stale and ignored. Each fact is applied at most once, results exactly once.
    expect(results.found).toHaveLength(4);
    const progress = results.items.filter((message) => message.type === 'progress');
    expect(progress.length).toBeLessThanOrEqual(4);
    expect(results.items).toHaveLength(2 + 4 + progress.length);
    expect(chat.events.of(TurnGrantedV1, (event) => event.groupId === group.id).map((event) => event.turn)).toEqual([
      1, 2,
    ]);
  });
});
