import { randomUUID } from 'node:crypto';
import {
  ForceConclusionV1,
  GetGroupV1,
  GroupStateChangedV1,
  ListMessagesV1,
  TasksAssignedV1,
  TaskUpdatedV1,
  type ChatMessageV1,
  type GroupV1,
} from '@ioa/contracts';
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
 * The task ledger over the real wire: the test plays the scheduler by publishing `TaskUpdatedV1` on JetStream, as
 * the scheduler does, and watches the group react.
 */
describe('group task ledger (real NATS, real database)', () => {
  let chat: ChatHarness;

  beforeAll(async () => {
    chat = await startChat();
  });

  afterAll(async () => {
    await chat?.stop();
  });

  async function messagesOf(group: GroupV1): Promise<ChatMessageV1[]> {
    return (await chat.ok(ListMessagesV1, { groupId: group.id, afterSeq: 0, limit: 500 })).items;
  }

  /** Waits until the group's state matches `expected` (the consumer applies updates asynchronously). */
  async function groupEventually(group: GroupV1, check: (current: GroupV1) => boolean): Promise<GroupV1> {
    const matched = await expectEventually(
      async () => {
        const current = await chat.ok(GetGroupV1, { groupId: group.id });
        return check(current) ? current : undefined;
      },
      { message: `group ${group.id} never reached the expected state` },
    );
    return matched!;
  }

  it('pause & trigger: the pauser gets the turn back when the last awaited task finishes', async () => {
    const { group, lead, bob, carol } = await openGroup(chat);
    const assigned = await accepted(chat, group, lead, {
      type: 'async_task_assign',
      nextSpeaker: lead.agentId,
      tasks: [
        { assigneeId: bob.agentId, description: 'Compute `1+1`', abstract: 'compute' },
        { assigneeId: carol.agentId, description: 'Find a source', abstract: 'research' },
      ],
    });
    const [compute, research] = assigned.group.tasks;
    const paused = await accepted(chat, assigned.group, lead, {
      type: 'pause',
      content: 'Waiting for both.',
      awaitTaskIds: [compute.taskId, research.taskId],
    });
    expect(paused.group).toMatchObject({
      state: 'paused',
      currentSpeaker: null,
      awaitingTaskIds: [compute.taskId, research.taskId],
    });
    const refused = await move(chat, paused.group, lead, { type: 'discussion', nextSpeaker: bob.agentId });
    expect(refused).toMatchObject({ ok: false, error: { details: { rule: 'PAUSED' } } });

    await reportTask(chat, taskOf(group, compute, 'working', { statusMessage: 'running node' }));
    await reportTask(chat, taskOf(group, compute, 'completed', { result: '2' }));
    const halfway = await groupEventually(group, (current) => current.tasks[0].state === 'completed');
    expect(halfway).toMatchObject({ state: 'paused', awaitingTaskIds: [research.taskId], currentSpeaker: null });

    await reportTask(chat, taskOf(group, research, 'failed', { statusMessage: 'carol went offline' }));
    const resumed = await groupEventually(group, (current) => current.state === 'discussing');
    expect(resumed).toMatchObject({ currentSpeaker: lead.agentId, turn: 3, awaitingTaskIds: [] });
    expect(resumed.tasks).toEqual([
      expect.objectContaining({ taskId: compute.taskId, state: 'completed', result: '2' }),
      expect.objectContaining({ taskId: research.taskId, state: 'failed', result: 'carol went offline' }),
    ]);
    const grant = await chat.events.turnGranted(group.id, 3);
    expect(grant).toMatchObject({ speakerId: lead.agentId, mustConclude: false });
    expect(grant.reason).toContain('tasks you paused for have finished');
    expect(grant.tasks.map((task) => task.state)).toEqual(['completed', 'failed']);
    const changed = await chat.events.waitFor(
      GroupStateChangedV1,
      (event) => event.group.id === group.id && event.previousState === 'paused',
    );
    expect(changed).toMatchObject({ reason: 'the awaited tasks finished', group: { state: 'discussing' } });

    const notices = (await messagesOf(group)).filter((message) => message.senderId === 'system').slice(1);
    expect(notices.map((message) => [message.type, message.content])).toEqual([
      ['progress', 'bob is working on “compute” (async): running node'],
      ['result', 'bob completed “compute” (async).\n\n2'],
      ['result', 'carol did not complete “research” (failed): carol went offline'],
    ]);
    expect(notices[1].tasks).toEqual([expect.objectContaining({ taskId: compute.taskId, state: 'completed' })]);

    // A pause only waits on unfinished tasks of the group.
    const onFinished = await move(chat, resumed, lead, { type: 'pause', awaitTaskIds: [compute.taskId] });
    expect(onFinished).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATE', details: { rule: 'TASK_FINISHED' } },
    });
  });

  it('runs sync and async tasks in parallel: async results interrupt, the sync assigner gets the turn back', async () => {
    const { group, lead, bob, carol } = await openGroup(chat);
    const background = await accepted(chat, group, lead, {
      type: 'async_task_assign',
      content: 'Bob, compute in the background; Carol, your thoughts?',
      nextSpeaker: carol.agentId,
      tasks: [{ assigneeId: bob.agentId, description: 'Compute `6*7`', abstract: 'compute' }],
    });
    const [asyncTask] = background.group.tasks;

    // The async result arrives while Carol holds the turn: a notice, and Carol keeps the turn.
    await reportTask(chat, taskOf(group, asyncTask, 'completed', { result: '42' }));
    const interrupted = await groupEventually(group, (current) => current.tasks[0].state === 'completed');
    expect(interrupted).toMatchObject({ state: 'discussing', currentSpeaker: carol.agentId, turn: 2 });

    await accepted(chat, interrupted, carol, { type: 'discussion', nextSpeaker: lead.agentId });
    const second = await accepted(chat, { ...interrupted, turn: 3 }, lead, {
      type: 'async_task_assign',
      nextSpeaker: lead.agentId,
      tasks: [{ assigneeId: bob.agentId, description: 'Double-check', abstract: 'check' }],
    });
    const waiting = await accepted(chat, second.group, lead, {
      type: 'sync_task_assign',
      content: 'Carol, write it up; we wait.',
      tasks: [{ assigneeId: carol.agentId, description: 'Write the report', abstract: 'report' }],
    });
    const [, checkTask, syncTask] = waiting.group.tasks;
    expect(waiting.group).toMatchObject({ state: 'awaiting_sync_tasks', awaitingTaskIds: [syncTask.taskId] });
    const modes = chat.events.of(TasksAssignedV1, (event) => event.groupId === group.id).map((event) => event.mode);
    expect(modes).toEqual(['async', 'async', 'sync']);

    // The second async task finishes while the group waits for the sync one: recorded, still waiting.
    await reportTask(chat, taskOf(group, checkTask, 'completed', { result: 'confirmed' }));
    const stillWaiting = await groupEventually(group, (current) => current.tasks[1].state === 'completed');
    expect(stillWaiting).toMatchObject({ state: 'awaiting_sync_tasks', currentSpeaker: null });

    await reportTask(chat, taskOf(group, syncTask, 'working'));
    await reportTask(chat, taskOf(group, syncTask, 'completed', { result: '# Report\n6*7 = 42' }));
    const back = await groupEventually(group, (current) => current.state === 'discussing');
    expect(back).toMatchObject({ currentSpeaker: lead.agentId, turn: 5 });
    const grant = await chat.events.turnGranted(group.id, 5);
    expect(grant.reason).toContain('sync tasks you assigned have finished');
    expect(grant.recentMessages.at(-1)).toMatchObject({ type: 'result', content: expect.stringContaining('# Report') });

    const done = await accepted(chat, back, lead, { type: 'conclude', content: '# Report\n6*7 = 42' });
    expect(done.group.state).toBe('concluded');
  });

  it('ignores a redelivered or stale task update: no duplicate notices, the ledger unchanged', async () => {
    const { group, lead, bob } = await openGroup(chat);
    const assigned = await accepted(chat, group, lead, {
      type: 'async_task_assign',
      nextSpeaker: bob.agentId,
      tasks: [{ assigneeId: bob.agentId, description: 'Compute', abstract: 'compute' }],
    });
    const [task] = assigned.group.tasks;
    const completed = taskOf(group, task, 'completed', { result: '2' });
    // Published without a message id, the stream stores both copies: the consumer sees a real redelivery.
    await reportTask(chat, completed);
    await reportTask(chat, completed);
    const late = taskOf(group, task, 'working', { updatedAt: new Date(Date.now() - 60_000).toISOString() });
    await reportTask(chat, late);
    // A marker update on another group proves the consumer has processed everything published before it.
    const marker = await openGroup(chat);
    const markerTask = (
      await accepted(chat, marker.group, marker.lead, {
        type: 'async_task_assign',
        nextSpeaker: marker.bob.agentId,
        tasks: [{ assigneeId: marker.bob.agentId, description: 'm', abstract: 'marker' }],
      })
    ).group.tasks[0];
    await reportTask(chat, taskOf(marker.group, markerTask, 'completed'));
    await groupEventually(marker.group, (current) => current.tasks[0].state === 'completed');

    const results = (await messagesOf(group)).filter((message) => message.type === 'result');
    expect(results).toHaveLength(1);
    const current = await chat.ok(GetGroupV1, { groupId: group.id });
    expect(current.tasks).toEqual([expect.objectContaining({ state: 'completed', result: '2' })]);
    expect(current.lastSeq).toBe(3);
  });

  it('ignores updates of tasks whose group does not exist, and drops malformed events, and goes on', async () => {
    const { group, lead, bob } = await openGroup(chat);
    const assigned = await accepted(chat, group, lead, {
      type: 'async_task_assign',
      nextSpeaker: bob.agentId,
      tasks: [{ assigneeId: bob.agentId, description: 'Compute', abstract: 'compute' }],
    });
    const [task] = assigned.group.tasks;
    const orphan = taskOf({ ...group, id: randomUUID() }, { ...task, taskId: randomUUID() }, 'completed');
    await reportTask(chat, orphan);
    chat.external.publish(TaskUpdatedV1.subject, '{"task": nope');
    chat.external.publish(TaskUpdatedV1.subject, JSON.stringify({ task: { id: 'not-a-task' } }));
    await reportTask(chat, taskOf(group, task, 'completed', { result: 'still consuming' }));
    const current = await groupEventually(group, (latest) => latest.tasks[0].state === 'completed');
    expect(current.tasks[0].result).toBe('still consuming');
  });

  it('a leader who lets a must-conclude turn pass gets a system conclusion summarizing the ledger', async () => {
    const { group, lead, bob } = await openGroup(chat, { turnTimeoutSeconds: 1 });
    const assigned = await accepted(chat, group, lead, {
      type: 'async_task_assign',
      nextSpeaker: bob.agentId,
      tasks: [{ assigneeId: bob.agentId, description: 'Compute', abstract: 'compute' }],
    });
    const [task] = assigned.group.tasks;
    await reportTask(chat, taskOf(group, task, 'completed', { result: 'The answer is 2.' }));
    await groupEventually(group, (current) => current.tasks[0].state === 'completed');
    await chat.ok(ForceConclusionV1, { groupId: group.id, reason: 'token budget of 500 reached' });
    const concluded = await groupEventually(group, (current) => current.state === 'concluded');
    expect(concluded.conclusion).toContain('lead did not conclude within 1 s');
    expect(concluded.conclusion).toContain('- compute (bob, completed): The answer is 2.');
  });
});
