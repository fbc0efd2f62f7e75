import type { Subscription } from '@nats-io/transport-node';
import {
  CancelGoalV1,
  GetAgentV1,
  GetGoalV1,
  GetGroupV1,
  GetTaskV1,
  GoalEventAppendedV1,
  ListGoalEventsV1,
  PostGoalMessageV1,
  ReportTaskV1,
  SubmitGoalV1,
  USER_SPEAKER,
  type GoalEventAppendedV1Event,
  type GoalEventV1,
  type GoalV1,
  type RequestContract,
  type SubmitGoalV1Request,
  type TaskAssignmentV1Request,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import { requestContract } from '@ioa/messaging';
import {
  anAgent,
  CODE_RUNNER,
  startScheduler,
  TRANSLATOR,
  WRITER,
  type AgentSpec,
  type Envelope,
  type MoveFields,
  type SchedulerHarness,
} from '../testing/scheduler-test-kit.js';

const ASTRONOMER: AgentSpec = {
  name: 'test-astronomer',
  description: 'Astronomy: charts the stars and planets of the night sky.',
  skills: [
    {
      id: 'chart-stars',
      name: 'Star charts',
      description: 'Chart the stars and planets visible in the night sky tonight from a given place.',
      tags: ['astronomy', 'stars'],
      examples: ['Chart the stars visible tonight from Lisbon'],
    },
  ],
};

/** Concludes at once, whatever it is asked (for goals whose conversation is not the point). */
const concludeAtOnce =
  (content = 'Done.') =>
  (): MoveFields => ({ type: 'conclude', content });

describe('goals: teams, conversation, people, budgets, sub-teams and the event log', () => {
  let harness: SchedulerHarness;

  beforeAll(async () => {
    harness = await startScheduler();
  });

  afterAll(async () => {
    await harness?.stop();
  });

  function submit(request: Partial<SubmitGoalV1Request> & Pick<SubmitGoalV1Request, 'goal'>): Promise<GoalV1> {
    return harness.ok(SubmitGoalV1, request as SubmitGoalV1Request);
  }

  it('forms the named team, runs a task with a brief, and completes with the conclusion', async () => {
    const coder = await harness.registerAgent(anAgent(CODE_RUNNER));
    const writer = await harness.registerAgent(anAgent(WRITER));
    coder.onTurn = (turn) => {
      const done = turn.tasks.find((task) => task.state === 'completed');
      if (!done) {
        return {
          type: 'sync_task_assign',
          content: 'Writer, a haiku please.',
          tasks: [
            {
              assigneeId: writer.id,
              description: 'Write a haiku about NATS. Keep it short.',
              abstract: 'Haiku about NATS',
            },
          ],
        };
      }
      return { type: 'conclude', content: `The haiku: ${done.result}` };
    };
    writer.onTask = (assignment: TaskAssignmentV1Request) => {
      setImmediate(() => {
        void writer.report(assignment.taskId, 'working', 'drafting').then(() =>
          writer.report(assignment.taskId, 'completed', 'Subjects fly / streams remember', {
            promptTokens: 30,
            completionTokens: 10,
            modelCalls: 1,
          }),
        );
      });
      return { accepted: true };
    };

    const submitted = await submit({ goal: 'Write a haiku about NATS', members: [coder.name, writer.id] });
    expect(submitted).toMatchObject({ status: 'submitted', depth: 0, maxDepth: 1, maxTurns: 12, tasks: [], team: [] });

    const done = await harness.goalIn(submitted.id, 'completed');
    expect(done.team).toEqual([
      { agentId: coder.id, name: coder.name, reason: expect.stringContaining('leads') },
      { agentId: writer.id, name: writer.name, reason: expect.any(String) },
    ]);
    expect(done.groupId).toEqual(expect.any(String));
    expect(done.conclusion).toBe('The haiku: Subjects fly / streams remember');
    expect(done.endedAt).toEqual(expect.any(String));
    expect(done.tasks).toEqual([
      expect.objectContaining({
        assigneeId: writer.id,
        assigneeName: writer.name,
        assignerId: coder.id,
        mode: 'sync',
        state: 'completed',
        result: 'Subjects fly / streams remember',
        attempts: 1,
        brief: expect.objectContaining({
          abstract: 'Write a haiku about NATS.',
          description: 'Write a haiku about NATS. Keep it short.',
          completionCriteria: expect.any(String),
        }),
      }),
    ]);
    // The task report's 40 tokens, plus what the (offline) model spent on the brief.
    expect(done.usage.promptTokens + done.usage.completionTokens).toBeGreaterThan(40);
    expect(done.usage.modelCalls).toBeGreaterThanOrEqual(2);

    expect(writer.assignments).toEqual([
      expect.objectContaining({
        goalId: done.id,
        groupId: done.groupId,
        agentId: writer.id,
        depth: 0,
        maxDepth: 1,
        attempt: 1,
      }),
    ]);

    const events = await harness.events(done.id);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    expect(statusesOf(events)).toEqual(['submitted', 'forming_team', 'working', 'completed']);
    const position = (predicate: (event: GoalEventV1) => boolean) => events.findIndex(predicate);
    expect(position((event) => event.type === 'team')).toBeLessThan(
      position((event) => event.data.status === 'working'),
    );
    expect(position((event) => event.type === 'message' && event.data.type === 'sync_task_assign')).toBeGreaterThan(0);
    expect(position((event) => event.type === 'task' && event.data.state === 'completed')).toBeGreaterThan(0);
    expect(position((event) => event.type === 'group' && groupState(event) === 'concluded')).toBeLessThan(
      position((event) => event.data.status === 'completed'),
    );
  });

  it('fails a goal whose named member is unknown, or offline, and says which', async () => {
    const unknown = await submit({ goal: 'Say hello', members: ['nobody-by-this-name'] });
    const failed = await harness.goalIn(unknown.id, 'failed');
    expect(failed.statusReason).toContain('Unknown agent "nobody-by-this-name"');
    expect(failed).toMatchObject({ team: [], groupId: null, endedAt: expect.any(String) });

    const sleeper = await harness.registerAgent(anAgent(WRITER, { name: 'sleepy-writer' }));
    sleeper.goSilent();
    await expectEventually(async () => (await harness.ok(GetAgentV1, { id: sleeper.id })).status === 'offline', {
      message: `${sleeper.name} never went offline`,
    });
    const offline = await submit({ goal: 'Say hello', members: [sleeper.name] });
    expect((await harness.goalIn(offline.id, 'failed')).statusReason).toBe(
      `Agent "${sleeper.name}" is offline, so it cannot join the team`,
    );
  });

  it('forms a team on its own: one member per need, found by discovery, with reasons', async () => {
    const translator = await harness.registerAgent(anAgent(TRANSLATOR));
    const astronomer = await harness.registerAgent(anAgent(ASTRONOMER));
    translator.onTurn = concludeAtOnce('Guten Abend; Vega and Jupiter are up.');
    astronomer.onTurn = concludeAtOnce('Guten Abend; Vega and Jupiter are up.');

    const goal = await submit({ goal: 'Translate the greeting into German, and chart the stars visible tonight' });
    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.team).toEqual([
      { agentId: translator.id, name: translator.name, reason: expect.stringContaining('Text translation') },
      { agentId: astronomer.id, name: astronomer.name, reason: expect.stringContaining('Star charts') },
    ]);
    // Writing the queries and picking the team are model calls, and count.
    expect(done.usage.modelCalls).toBeGreaterThanOrEqual(2);
    const team = (await harness.events(goal.id)).find((event) => event.type === 'team');
    expect(team?.data).toEqual({ members: done.team, leaderId: translator.id });
  });

  it('fails with the reason when no suitable agent exists, rather than inventing one', async () => {
    const goal = await submit({ goal: 'Bake a sourdough loaf with rye flour' });
    const failed = await harness.goalIn(goal.id, 'failed');
    expect(failed.statusReason).toMatch(/^No suitable agent for this goal after 3 attempts: /);
    expect(failed).toMatchObject({ team: [], groupId: null });
    expect(failed.usage.modelCalls).toBeGreaterThanOrEqual(3);
  });

  it('returns the first goal for a retried submission with the same Idempotency-Key', async () => {
    const send = () =>
      requestContract(harness.external, SubmitGoalV1, { goal: 'Bake a sourdough loaf once' } as SubmitGoalV1Request, {
        timeoutMs: 10_000,
        idempotencyKey: 'retry-me-1',
      });
    const [first, second] = await Promise.all([send(), send()]);
    const third = await send();
    expect(second.id).toBe(first.id);
    expect(third.id).toBe(first.id);
    const other = await requestContract(
      harness.external,
      SubmitGoalV1,
      { goal: 'Bake a sourdough loaf once' } as SubmitGoalV1Request,
      {
        timeoutMs: 10_000,
        idempotencyKey: 'retry-me-2',
      },
    );
    expect(other.id).not.toBe(first.id);
  });

  it('lets a person answer the team and follow up on a concluded goal, which re-opens it', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    lead.onTurn = (turn) => {
      const lastFromUser = [...turn.recentMessages].reverse().find((message) => message.type === 'user');
      const lastMine = [...turn.recentMessages].reverse().find((message) => message.senderId === lead.id);
      if (lastFromUser && (!lastMine || lastFromUser.seq > lastMine.seq)) {
        return { type: 'conclude', content: `Answer for: ${lastFromUser.content}` };
      }
      return { type: 'discussion', content: 'Which language should the greeting be in?', nextSpeaker: USER_SPEAKER };
    };

    const goal = await submit({ goal: 'Write a greeting for the team', members: [lead.name] });
    // The leader asks at once, possibly before the scheduler has recorded the new group: it still notices.
    await harness.goalIn(goal.id, 'input_required');
    const answered = await harness.ok(PostGoalMessageV1, { goalId: goal.id, content: 'German, please', author: 'ada' });
    expect(answered.status).toBe('working');
    expect((await harness.goalIn(goal.id, 'completed')).conclusion).toBe('Answer for: German, please');

    const followedUp = await harness.ok(PostGoalMessageV1, {
      goalId: goal.id,
      content: 'And in French?',
      author: 'ada',
    });
    expect(followedUp).toMatchObject({ status: 'working', endedAt: null });
    const reconcluded = await harness.goalWhen(
      goal.id,
      (current) => current.status === 'completed' && current.conclusion === 'Answer for: And in French?',
    );
    expect(reconcluded.endedAt).toEqual(expect.any(String));
    expect(statusesOf(await harness.events(goal.id))).toEqual([
      'submitted',
      'forming_team',
      'working',
      'input_required',
      'working',
      'completed',
      'working',
      'completed',
    ]);
  });

  it('cancels a goal: its tasks are canceled and their owners told, the group closes, nothing runs on', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const worker = await harness.registerAgent(anAgent(CODE_RUNNER));
    lead.onTurn = (turn) =>
      turn.tasks.length === 0
        ? {
            type: 'async_task_assign',
            content: 'Start counting.',
            nextSpeaker: worker.id,
            tasks: [{ assigneeId: worker.id, description: 'Count to a billion.', abstract: 'Count' }],
          }
        : undefined;
    worker.onTask = (assignment) => {
      setImmediate(() => void worker.report(assignment.taskId, 'working', 'counting'));
      return { accepted: true };
    };

    const goal = await submit({ goal: 'Count to a billion', members: [lead.name, worker.name] });
    const working = await harness.goalWhen(goal.id, (current) => current.tasks[0]?.state === 'working');
    const [task] = working.tasks;

    const canceled = await harness.ok(CancelGoalV1, { goalId: goal.id, reason: 'Changed my mind' });
    expect(canceled).toMatchObject({
      status: 'canceled',
      statusReason: 'Changed my mind',
      endedAt: expect.any(String),
    });
    expect(canceled.tasks).toEqual([
      expect.objectContaining({
        id: task.id,
        state: 'canceled',
        statusMessage: 'The goal was canceled: Changed my mind',
      }),
    ]);
    await expectEventually(() => worker.cancellations.some((cancellation) => cancellation.taskId === task.id), {
      message: 'the assignee was never told',
    });
    await expectEventually(
      async () => (await harness.ok(GetGroupV1, { groupId: working.groupId! })).state === 'failed',
      {
        message: 'the group was never closed',
      },
    );

    const lateReport = await worker.report(task.id, 'completed', 'a billion');
    expect(lateReport.ok).toBe(false);
    expect(lateReport.ok === false && lateReport.error).toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('stop working on it'),
    });
    expect((await harness.ok(CancelGoalV1, { goalId: goal.id, reason: 'Again' })).statusReason).toBe('Changed my mind');
    const posted = await harness.call(PostGoalMessageV1, { goalId: goal.id, content: 'Hello?' });
    expect(posted.ok === false && posted.error.code).toBe('INVALID_STATE');
    expect((await harness.ok(GetTaskV1, { taskId: task.id })).state).toBe('canceled');
  });

  it('brings a goal that reached its token budget to a conclusion, and says why', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    lead.onTurn = (turn) =>
      turn.mustConclude
        ? { type: 'conclude', content: 'Concluding with what I have.' }
        : {
            type: 'discussion',
            content: 'Thinking out loud at length.',
            nextSpeaker: lead.id,
            usage: { promptTokens: 400, completionTokens: 200, modelCalls: 1 },
          };

    const goal = await submit({ goal: 'Ponder everything', members: [lead.name], budget: { tokens: 1000 } });
    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.conclusion).toBe('Concluding with what I have.');
    expect(done.statusReason).toMatch(/^Token budget reached \(\d+ of 1000 tokens\)/);
    expect(done.usage.promptTokens + done.usage.completionTokens).toBeGreaterThanOrEqual(1000);
    // The budget, not the turn limit (12), ended the discussion: the leader was told to conclude early.
    expect(lead.turns.some((turn) => turn.mustConclude && turn.turn < 12)).toBe(true);
  });

  it('brings a goal that ran out of time to a conclusion', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    lead.onTurn = (turn) =>
      turn.mustConclude ? { type: 'conclude', content: 'Out of time; here is what I have.' } : undefined;
    const goal = await submit({ goal: 'Take your time', members: [lead.name], budget: { seconds: 1 } });
    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.statusReason).toMatch(/^Time budget reached \(\d+ of 1 seconds\)/);
    expect(done.conclusion).toBe('Out of time; here is what I have.');
  });

  it('runs a nested sub-team whose conclusion completes the parent task, and refuses to nest beyond maxDepth', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const delegate = await harness.registerAgent(anAgent(TRANSLATOR));
    const helper = await harness.registerAgent(anAgent(CODE_RUNNER));
    const childGoals: GoalV1[] = [];
    const refusals: Array<Envelope<GoalV1>> = [];

    lead.onTurn = (turn) => {
      const done = turn.tasks.find((task) => task.state === 'completed');
      if (done) return { type: 'conclude', content: `Parent: ${done.result}` };
      return {
        type: 'sync_task_assign',
        content: 'Please take this on with a sub-team.',
        tasks: [{ assigneeId: delegate.id, description: 'Research the answer with a sub-team.', abstract: 'Research' }],
      };
    };
    delegate.onTask = (assignment) => {
      later(async () => {
        const child = await harness.ok(SubmitGoalV1, {
          goal: 'Research the answer',
          members: [helper.name],
          parentTaskId: assignment.taskId,
        } as SubmitGoalV1Request);
        childGoals.push(child);
        // The owner does not wait for the sub-team: it reports `working` and is free for its other groups.
        await delegate.report(assignment.taskId, 'working', `Sub-team formed: goal ${child.id}`);
      });
      return { accepted: true };
    };
    helper.onTurn = (turn: TurnGrantedV1Event) => {
      const done = turn.tasks.find((task) => task.state === 'completed');
      if (done) return { type: 'conclude', content: `Child found: ${done.result}` };
      return {
        type: 'sync_task_assign',
        content: 'I will look it up myself.',
        tasks: [{ assigneeId: helper.id, description: 'Look the answer up.', abstract: 'Look up' }],
      };
    };
    helper.onTask = (assignment) => {
      later(async () => {
        // One level deeper than maxDepth (1) allows: refused, so the helper does the work itself.
        refusals.push(
          await harness.call(SubmitGoalV1, {
            goal: 'Go deeper',
            members: [helper.name],
            parentTaskId: assignment.taskId,
          }),
        );
        await helper.report(assignment.taskId, 'completed', '42');
      });
      return { accepted: true };
    };

    const parent = await submit({ goal: 'Find the answer', members: [lead.name, delegate.name] });
    const done = await harness.goalIn(parent.id, 'completed');
    expect(done.conclusion).toBe('Parent: Child found: 42');

    const [child] = childGoals;
    const [parentTask] = done.tasks;
    expect(parentTask).toMatchObject({ state: 'completed', result: 'Child found: 42', childGoalId: child.id });
    const childDone = await harness.ok(GetGoalV1, { goalId: child.id });
    expect(childDone).toMatchObject({ status: 'completed', depth: 1, maxDepth: 1, parentTaskId: parentTask.id });
    expect(childDone.tasks[0]).toMatchObject({ parentTaskId: parentTask.id, state: 'completed' });
    // The child's tokens count towards the parent goal too.
    expect(done.usage.modelCalls).toBeGreaterThan(childDone.usage.modelCalls);

    expect(refusals).toEqual([
      {
        ok: false,
        error: expect.objectContaining({ code: 'INVALID_STATE', message: expect.stringContaining('at most 1 deep') }),
      },
    ]);
  });

  it('fails the parent task when its sub-team fails, and cancels a sub-team when the parent goal is canceled', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const delegate = await harness.registerAgent(anAgent(TRANSLATOR));
    const helper = await harness.registerAgent(anAgent(CODE_RUNNER));
    const childGoals: GoalV1[] = [];
    let childMembers = ['no-such-helper'];
    lead.onTurn = (turn) => {
      const finished = turn.tasks.find((task) => task.state === 'failed');
      if (finished) return { type: 'conclude', content: `The sub-team failed: ${finished.result}` };
      return {
        type: 'sync_task_assign',
        tasks: [{ assigneeId: delegate.id, description: 'Do it with a sub-team.', abstract: 'Delegate' }],
      };
    };
    delegate.onTask = (assignment) => {
      later(async () => {
        childGoals.push(
          await harness.ok(SubmitGoalV1, {
            goal: 'Do it',
            members: childMembers,
            parentTaskId: assignment.taskId,
          } as SubmitGoalV1Request),
        );
        await delegate.report(assignment.taskId, 'working', 'delegated');
      });
      return { accepted: true };
    };

    // 1. The sub-team cannot form (unknown member): the child goal fails, and so does the parent task.
    const first = await submit({ goal: 'Do it, delegated', members: [lead.name, delegate.name] });
    const firstDone = await harness.goalIn(first.id, 'completed');
    expect(firstDone.tasks[0]).toMatchObject({
      state: 'failed',
      statusMessage: expect.stringMatching(/^The sub-team failed: Unknown agent "no-such-helper"/),
    });
    expect((await harness.ok(GetGoalV1, { goalId: childGoals[0].id })).status).toBe('failed');

    // 2. The sub-team is at work (its leader never speaks) when the parent goal is canceled: it is canceled too.
    childMembers = [helper.name];
    helper.onTurn = () => undefined;
    const second = await submit({ goal: 'Do it again, delegated', members: [lead.name, delegate.name] });
    await expectEventually(() => childGoals.length === 2, { message: 'no second sub-team' });
    const child = await harness.goalIn(childGoals[1].id, 'working');
    await harness.ok(CancelGoalV1, { goalId: second.id, reason: 'Not needed any more' });
    const canceledChild = await harness.goalIn(child.id, 'canceled');
    expect(canceledChild.statusReason).toBe('The task this sub-team worked for was canceled');
    await expectEventually(async () => (await harness.ok(GetGroupV1, { groupId: child.groupId! })).state === 'failed', {
      message: "the sub-team's group was never closed",
    });
  });

  it('keeps an ordered event log that can be paged and resumed, with a live tail', async () => {
    const live: GoalEventAppendedV1Event[] = [];
    const tail: Subscription = harness.external.subscribe(GoalEventAppendedV1.subject, {
      callback: (_error, message) => {
        live.push(JSON.parse(new TextDecoder().decode(message.data)) as GoalEventAppendedV1Event);
      },
    });
    try {
      const lead = await harness.registerAgent(anAgent(WRITER));
      lead.onTurn = concludeAtOnce('All done.');
      const goal = await submit({ goal: 'Say something', members: [lead.name] });
      await harness.goalIn(goal.id, 'completed');
      // Chat's messages and group changes reach the scheduler on separate consumers (one per subject), so the
      // concluding message may be logged just after the goal completed: the log is complete once it is there.
      let all: GoalEventV1[] = [];
      await expectEventually(async () => {
        all = await harness.events(goal.id);
        return all.some((entry) => entry.type === 'message' && (entry.data as { type?: string }).type === 'conclude');
      });
      expect(all.length).toBeGreaterThanOrEqual(6);

      const page = await harness.ok(ListGoalEventsV1, { goalId: goal.id, afterSeq: 2, limit: 3 });
      expect(page.items.map((event) => event.seq)).toEqual([3, 4, 5]);
      expect(page.lastSeq).toBe(all.length);
      const rest = await harness.ok(ListGoalEventsV1, { goalId: goal.id, afterSeq: 5, limit: 1000 });
      expect([
        ...(await harness.ok(ListGoalEventsV1, { goalId: goal.id, afterSeq: 0, limit: 5 })).items,
        ...rest.items,
      ]).toEqual(all);

      const mine = () => live.filter((entry) => entry.event.goalId === goal.id).map((entry) => entry.event);
      await expectEventually(() => mine().length === all.length, { message: 'the live tail missed entries' });
      expect([...mine()].sort((left, right) => left.seq - right.seq)).toEqual(all);

      const missing = await harness.call(ListGoalEventsV1, { goalId: '00000000-0000-4000-8000-000000000000' });
      expect(missing.ok === false && missing.error.code).toBe('NOT_FOUND');
    } finally {
      tail.unsubscribe();
    }
  });

  it('answers malformed and invalid payloads on every scheduler subject with structured errors', async () => {
    const subjects: Array<RequestContract<unknown, unknown>> = [
      SubmitGoalV1,
      GetGoalV1,
      CancelGoalV1,
      PostGoalMessageV1,
      ListGoalEventsV1,
      ReportTaskV1,
      GetTaskV1,
    ] as never;
    for (const contract of subjects) {
      const malformed = await harness.call(contract, '{"goal": nope');
      expect(malformed.ok === false && malformed.error.code).toBe('MALFORMED_PAYLOAD');
      const invalid = await harness.call(contract, { goalId: 'not-a-uuid', taskId: 42, goal: '' });
      expect(invalid.ok === false && invalid.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: expect.any(Array),
      });
      const notAnObject = await harness.call(contract, '[1, 2, 3]');
      expect(notAnObject.ok === false && notAnObject.error.code).toBe('VALIDATION_FAILED');
    }
    const tooDeep = await harness.call(SubmitGoalV1, { goal: 'x', maxDepth: 9, budget: { tokens: 0 } });
    expect(tooDeep.ok === false && tooDeep.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ property: 'maxDepth' }),
        expect.objectContaining({ property: 'budget.tokens' }),
      ]),
    );
    const unknownParent = await harness.call(SubmitGoalV1, {
      goal: 'x',
      parentTaskId: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknownParent.ok === false && unknownParent.error.code).toBe('NOT_FOUND');
    const unknownGoal = await harness.call(GetGoalV1, { goalId: '00000000-0000-4000-8000-000000000000' });
    expect(unknownGoal.ok === false && unknownGoal.error.code).toBe('NOT_FOUND');
  });
});

/** Runs `work` after the current callback (an agent acknowledges its task first, then works and reports). */
function later(work: () => Promise<unknown>): void {
  setImmediate(() => void work());
}

function statusesOf(events: GoalEventV1[]): unknown[] {
  const statuses = events.filter((event) => event.type === 'status').map((event) => event.data.status);
  // A status entry is also written when only the reason changes (a budget reached): keep changes only.
  return statuses.filter((status, index) => index === 0 || statuses[index - 1] !== status);
}

function groupState(event: GoalEventV1): unknown {
  return (event.data.group as { state?: string } | undefined)?.state;
}
