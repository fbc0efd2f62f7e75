import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  CHAT_EVENTS_STREAM,
  GetGroupV1,
  GroupStateChangedV1,
  MessagePostedV1,
  SubmitGoalV1,
  type ChatMessageV1,
  type GoalEventV1,
  type GroupStateChangedV1Event,
  type GroupV1,
  type MessagePostedV1Event,
} from '@ioa/contracts';
import pg from 'pg';
import { expectEventually } from '@ioa/testing';
import { anAgent, startScheduler, WRITER, type SchedulerHarness } from '../testing/scheduler-test-kit.js';

const GAP_TIMEOUT_MS = 1500;

/**
 * The goal's log holds a group's messages and state changes in chat's order, whichever of the scheduler's consumers
 * delivers them first. The test plays chat's side of the wire for the end of a conversation — it publishes the
 * events chat would, in the order a race between two consumers can deliver them — over a group chat really opened
 * for the goal (whose lead never speaks, so chat itself stays quiet).
 */
describe('group feed: the end of a conversation, delivered out of order', () => {
  let harness: SchedulerHarness;

  beforeAll(async () => {
    harness = await startScheduler({ SCHEDULER_GROUP_GAP_TIMEOUT_MS: String(GAP_TIMEOUT_MS) });
  }, 120_000);

  afterAll(() => harness?.stop());

  /** A working goal and its real group, once every message chat wrote so far is in the goal's log. */
  async function workingGoal(): Promise<{ goalId: string; group: GroupV1 }> {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const submitted = await harness.ok(SubmitGoalV1, {
      goal: 'Write a line about order',
      members: [lead.name],
      maxTurns: 12,
      maxDepth: 1,
      budget: {},
    });
    const goal = await harness.goalIn(submitted.id, 'working');
    const group = await harness.ok(GetGroupV1, { groupId: goal.groupId! });
    await expectEventually(async () => messageSeqs(await harness.events(goal.id)).length === group.lastSeq);
    return { goalId: goal.id, group };
  }

  function message(group: GroupV1, seq: number, content: string): MessagePostedV1Event {
    const posted: ChatMessageV1 = {
      id: randomUUID(),
      groupId: group.id,
      seq,
      type: seq === group.lastSeq + 2 ? 'conclude' : 'discussion',
      senderId: group.leaderId,
      senderName: group.members[0].name,
      content,
      turn: group.turn,
      createdAt: new Date().toISOString(),
    };
    return { message: posted, goalId: group.goalId };
  }

  function concluded(group: GroupV1, lastSeq: number): GroupStateChangedV1Event {
    return {
      group: { ...group, state: 'concluded', lastSeq, conclusion: 'In order.', currentSpeaker: null },
      previousState: 'discussing',
      reason: 'The leader concluded',
    };
  }

  /**
   * Chat's own record of the end the test is about to deliver: the scheduler believes a group's end only when chat
   * says the same (it asks `ioa.chat.group.get.v1`), so the test, playing chat's side of the wire, writes chat's
   * row as chat would have before publishing its events.
   */
  async function chatRecordsConclusion(group: GroupV1, lastSeq: number): Promise<void> {
    const client = new pg.Client({ connectionString: harness.infrastructure.databaseUrl });
    await client.connect();
    try {
      await client.query(
        `UPDATE chat.groups SET state = 'concluded', conclusion = $2, last_seq = $3, current_speaker = NULL,
           turn_deadline = NULL WHERE id = $1`,
        [group.id, 'In order.', lastSeq],
      );
    } finally {
      await client.end();
    }
  }

  async function publish(subject: string, event: object, id: string): Promise<void> {
    await jetstream(harness.external).publish(subject, JSON.stringify(event), { msgID: id });
  }

  it('logs the concluding message before the conclusion that overtook it, without a redelivery', async () => {
    const { goalId, group } = await workingGoal();
    const last = group.lastSeq + 2;
    const redeliveredBefore = await redeliveries();

    // The race as two consumers can resolve it: the conclusion first, then the last message, then the one before.
    await chatRecordsConclusion(group, last);
    await publish(GroupStateChangedV1.subject, concluded(group, last), `${group.id}:state:test`);
    await publish(MessagePostedV1.subject, message(group, last, 'Concluding.'), `${group.id}:${last}`);
    await publish(MessagePostedV1.subject, message(group, last - 1, 'One more thought.'), `${group.id}:${last - 1}`);

    const completed = await harness.goalIn(goalId, 'completed');
    expect(completed.conclusion).toBe('In order.');
    const events = await harness.events(goalId);
    // Every message once, in seq order, then the conclusion, then the goal's end.
    expect(messageSeqs(events)).toEqual(range(1, last));
    const conclusion = events.findIndex((event) => event.type === 'group' && groupState(event) === 'concluded');
    const lastMessage = events.findIndex((event) => event.type === 'message' && messageSeq(event) === last);
    const end = events.findIndex((event) => event.type === 'status' && event.data.status === 'completed');
    expect(lastMessage).toBeGreaterThan(-1);
    expect(conclusion).toBeGreaterThan(lastMessage);
    expect(end).toBeGreaterThan(conclusion);
    expect(events.map((event) => event.seq)).toEqual(range(1, events.length));
    // Held in the database and acknowledged, not handed back to JetStream to wait for a redelivery.
    expect(await redeliveries()).toBe(redeliveredBefore);
  });

  it('gives up on a message that never comes after the gap timeout, and logs it late if it comes after all', async () => {
    const { goalId, group } = await workingGoal();
    const last = group.lastSeq + 2;
    await chatRecordsConclusion(group, last);
    await publish(GroupStateChangedV1.subject, concluded(group, last), `${group.id}:state:test`);
    await publish(MessagePostedV1.subject, message(group, last, 'Concluding.'), `${group.id}:${last}`);

    // Message `last - 1` is missing: the goal is held while the gap is young…
    const held = await harness.events(goalId);
    expect(held.some((event) => event.type === 'group' && groupState(event) === 'concluded')).toBe(false);
    // …and completes once the sweeper gives up on it.
    await harness.goalIn(goalId, 'completed');
    expect(messageSeqs(await harness.events(goalId))).toEqual([...range(1, last - 2), last]);

    await publish(MessagePostedV1.subject, message(group, last - 1, 'Late.'), `${group.id}:${last - 1}`);
    await expectEventually(async () => messageSeqs(await harness.events(goalId)).includes(last - 1));
    expect(messageSeqs(await harness.events(goalId))).toEqual([...range(1, last - 2), last, last - 1]);
    expect((await harness.goalIn(goalId, 'completed')).conclusion).toBe('In order.');
  });

  /** Redeliveries of the scheduler's consumers of chat's messages and state changes. */
  async function redeliveries(): Promise<number> {
    const manager = await jetstreamManager(harness.external);
    let total = 0;
    for (const name of ['scheduler-chat-message-posted-v1', 'scheduler-chat-group-state-changed-v1']) {
      total += (await manager.consumers.info(CHAT_EVENTS_STREAM, name)).num_redelivered;
    }
    return total;
  }
});

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}

function messageSeq(event: GoalEventV1): number {
  return (event.data as { seq: number }).seq;
}

function messageSeqs(events: GoalEventV1[]): number[] {
  return events.filter((event) => event.type === 'message').map(messageSeq);
}

function groupState(event: GoalEventV1): string {
  return (event.data as { group: { state: string } }).group.state;
}
