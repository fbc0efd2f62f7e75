import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import {
  GetGroupV1,
  GetTaskV1,
  ListMessagesV1,
  SubmitGoalV1,
  TasksAssignedV1,
  TaskUpdatedV1,
  type GoalV1,
  type SubmitGoalV1Request,
  type TaskUpdatedV1Event,
  type TaskV1,
} from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import {
  anAgent,
  CODE_RUNNER,
  startScheduler,
  WRITER,
  type SchedulerHarness,
  type TestAgent,
} from '../testing/scheduler-test-kit.js';

// Longer than the registry's presence TTL in tests (2 s), so an owner going offline is noticed before its deadline.
const DEADLINE_SECONDS = 6;

describe('tasks: delivery, briefs, reports, parallel work, offline owners, deadlines and retries', () => {
  let harness: SchedulerHarness;
  const updates: TaskV1[] = [];
  let watch: Subscription;

  beforeAll(async () => {
    harness = await startScheduler({ SCHEDULER_TASK_DEADLINE_SECONDS: String(DEADLINE_SECONDS) });
    watch = harness.external.subscribe(TaskUpdatedV1.subject, {
      callback: (_error, message) => {
        updates.push((JSON.parse(new TextDecoder().decode(message.data)) as TaskUpdatedV1Event).task);
      },
    });
  });

  afterAll(async () => {
    watch?.unsubscribe();
    await harness?.stop();
  });

  function submit(goal: string, members: TestAgent[]): Promise<GoalV1> {
    return harness.ok(SubmitGoalV1, { goal, members: members.map((member) => member.name) } as SubmitGoalV1Request);
  }

  /** Accepts every task and reports `working`, then leaves it to the test. */
  function acceptAndWork(agent: TestAgent, note = 'on it'): void {
    agent.onTask = (assignment) => {
      setImmediate(() => void agent.report(assignment.taskId, 'working', note));
      return { accepted: true };
    };
  }

  /** Accepts every task and completes it at once with `result(description)`. */
  function acceptAndComplete(agent: TestAgent, result: (description: string) => string): void {
    agent.onTask = (assignment) => {
      setImmediate(() => {
        void agent
          .report(assignment.taskId, 'working', 'starting')
          .then(() => agent.report(assignment.taskId, 'completed', result(assignment.brief.description)));
      });
      return { accepted: true };
    };
  }

  it('survives malformed chat events on its durable consumer', async () => {
    const js = jetstream(harness.external);
    await js.publish(TasksAssignedV1.subject, new TextEncoder().encode('{"groupId": nope'));
    await js.publish(
      TasksAssignedV1.subject,
      new TextEncoder().encode(JSON.stringify({ groupId: 'x', tasks: 'many' })),
    );
    await js.publish(
      TasksAssignedV1.subject,
      new TextEncoder().encode(
        JSON.stringify({
          groupId: randomUUID(),
          goalId: randomUUID(), // no such goal
          assignerId: randomUUID(),
          mode: 'async',
          tasks: [],
          drafts: [],
          messageId: randomUUID(),
        }),
      ),
    );
    // The consumer goes on: a real assignment right after is stored and delivered.
    const lead = await harness.registerAgent(anAgent(WRITER));
    const worker = await harness.registerAgent(anAgent(CODE_RUNNER));
    lead.onTurn = (turn) =>
      turn.tasks.length === 0
        ? { type: 'sync_task_assign', tasks: [{ assigneeId: worker.id, description: 'Say hi.', abstract: 'Hi' }] }
        : { type: 'conclude', content: 'Said hi.' };
    acceptAndComplete(worker, () => 'hi');
    const goal = await submit('Say hi', [lead, worker]);
    expect((await harness.goalIn(goal.id, 'completed')).tasks[0]).toMatchObject({ state: 'completed', result: 'hi' });
  });

  it('delivers each task with a brief drawn from earlier results, and records progress and results', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER, { name: 'brief-lead' }));
    const coder = await harness.registerAgent(anAgent(CODE_RUNNER));
    const writer = await harness.registerAgent(anAgent(WRITER));
    lead.onTurn = (turn) => {
      if (turn.tasks.length === 0) {
        return {
          type: 'sync_task_assign',
          tasks: [
            {
              assigneeId: coder.id,
              description: 'Run this JavaScript code: `console.log(6 * 7)`',
              abstract: 'Run code',
            },
          ],
        };
      }
      if (turn.tasks.length === 1) {
        return {
          type: 'sync_task_assign',
          tasks: [{ assigneeId: writer.id, description: 'Write a short report about the result.', abstract: 'Report' }],
        };
      }
      return { type: 'conclude', content: turn.tasks[1].result ?? '' };
    };
    acceptAndComplete(coder, () => '42');
    acceptAndComplete(writer, () => '# Report\n- The code printed 42.');

    const goal = await submit('Compute and report', [lead, coder, writer]);
    const done = await harness.goalIn(goal.id, 'completed');
    const [run, report] = done.tasks;
    expect(run).toMatchObject({ assigneeId: coder.id, state: 'completed', result: '42', statusMessage: 'starting' });
    expect(run.brief).toEqual({
      abstract: 'Run this JavaScript code: `console.log(6 * 7)`',
      inputs: '',
      description: 'Run this JavaScript code: `console.log(6 * 7)`',
      completionCriteria: expect.stringContaining('Run the JavaScript'),
    });
    // The second brief carries the first task's result as its input.
    expect(report.brief?.inputs).toContain('42');
    expect(writer.assignments[0].brief.inputs).toContain(`${coder.name}: Run code`);
    expect(run.startedAt! <= run.completedAt!).toBe(true);

    // Every change went out as TaskUpdatedV1, versions in order, ending with the result.
    const ofRun = () => updates.filter((update) => update.id === run.id);
    await expectEventually(() => ofRun().at(-1)?.state === 'completed', { message: 'no completed update' });
    expect(ofRun().map((update) => update.state)).toEqual(['submitted', 'submitted', 'working', 'completed']);

    // Reporting the same outcome again changes nothing (a retry after a lost reply).
    const again = await coder.report(run.id, 'completed', '42');
    expect(again).toEqual({
      ok: true,
      data: expect.objectContaining({ state: 'completed', updatedAt: run.updatedAt }),
    });
  });

  it('runs sync and async tasks in parallel', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const cruncher = await harness.registerAgent(anAgent(CODE_RUNNER));
    const planner = await harness.registerAgent(anAgent(WRITER));
    const charter = await harness.registerAgent(anAgent(CODE_RUNNER));
    lead.onTurn = () => ({
      type: 'async_task_assign',
      content: 'Crunch in the background; planner, go on.',
      nextSpeaker: planner.id,
      tasks: [{ assigneeId: cruncher.id, description: 'Crunch the numbers.', abstract: 'Crunch' }],
    });
    planner.onTurn = (turn) => {
      const crunch = turn.tasks.find((task) => task.assigneeId === cruncher.id);
      const chart = turn.tasks.find((task) => task.assigneeId === charter.id);
      if (!chart) {
        return {
          type: 'sync_task_assign',
          tasks: [{ assigneeId: charter.id, description: 'Draw the chart.', abstract: 'Chart' }],
        };
      }
      if (crunch && crunch.state !== 'completed') {
        return { type: 'pause', content: 'Waiting for the numbers.', awaitTaskIds: [crunch.taskId] };
      }
      return { type: 'conclude', content: `Chart: ${chart.result}; numbers: ${crunch?.result}` };
    };
    acceptAndWork(cruncher, 'crunching');
    acceptAndComplete(charter, () => 'a bar chart');

    const goal = await submit('Crunch numbers and chart them', [lead, cruncher, planner, charter]);
    // The chart (sync) is done while the crunching (async) still runs; then the crunch finishes.
    const chartDone = await harness.goalWhen(goal.id, (current) =>
      current.tasks.some((task) => task.assigneeId === charter.id && task.state === 'completed'),
    );
    const crunch = chartDone.tasks.find((task) => task.assigneeId === cruncher.id)!;
    expect(crunch.state).toBe('working');
    await expectEventually(
      async () => (await harness.ok(GetGroupV1, { groupId: chartDone.groupId! })).state === 'paused',
      { message: 'the planner never paused on the crunch' },
    );
    expect((await cruncher.report(crunch.id, 'completed', '1, 2, 3')).ok).toBe(true);

    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.conclusion).toBe('Chart: a bar chart; numbers: 1, 2, 3');
    const chart = done.tasks.find((task) => task.assigneeId === charter.id)!;
    const crunched = done.tasks.find((task) => task.assigneeId === cruncher.id)!;
    expect(crunched.mode).toBe('async');
    expect(chart.mode).toBe('sync');
    expect(crunched.startedAt! < chart.completedAt!).toBe(true);
    expect(chart.completedAt! < crunched.completedAt!).toBe(true);
  });

  it('fails the open tasks of an owner that goes offline, and the group hears of it', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const flaky = await harness.registerAgent(anAgent(CODE_RUNNER, { name: 'flaky-runner' }));
    lead.onTurn = (turn) =>
      turn.tasks.length === 0
        ? {
            type: 'sync_task_assign',
            tasks: [{ assigneeId: flaky.id, description: 'Run the long job.', abstract: 'Long job' }],
          }
        : { type: 'conclude', content: `The job ${turn.tasks[0].state}: ${turn.tasks[0].result}` };
    acceptAndWork(flaky);

    const goal = await submit('Run the long job', [lead, flaky]);
    const working = await harness.goalWhen(goal.id, (current) => current.tasks[0]?.state === 'working');
    flaky.goSilent(); // the registry marks it offline after its TTL, and says so on its event stream

    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.tasks[0]).toMatchObject({
      state: 'failed',
      statusMessage: `${flaky.name} went offline before finishing the task`,
    });
    // The group was told: its ledger has the failure, and the sync wait ended (the lead concluded).
    expect(done.conclusion).toContain('The job failed');
    const messages = await harness.ok(ListMessagesV1, { groupId: working.groupId!, afterSeq: 0, limit: 100 });
    expect(
      messages.items.some((message) => message.type === 'result' && message.content.includes('went offline')),
    ).toBe(true);
    expect(flaky.cancellations).toEqual([
      { taskId: working.tasks[0].id, reason: 'You went offline; the task was failed' },
    ]);
  });

  it('fails a task that passes its deadline and tells its owner to stop', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const slow = await harness.registerAgent(anAgent(CODE_RUNNER));
    lead.onTurn = (turn) =>
      turn.tasks.length === 0
        ? { type: 'sync_task_assign', tasks: [{ assigneeId: slow.id, description: 'Take forever.', abstract: 'Slow' }] }
        : { type: 'conclude', content: 'Gave up waiting.' };
    slow.onTask = () => ({ accepted: true }); // and never reports

    const goal = await submit('Take forever', [lead, slow]);
    const [assignment] = [await slow.assignment()];
    expect(new Date(assignment.deadline).getTime() - Date.now()).toBeLessThanOrEqual(DEADLINE_SECONDS * 1000);

    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.tasks[0]).toMatchObject({
      state: 'failed',
      statusMessage: `No result within the deadline of ${DEADLINE_SECONDS} s`,
    });
    await expectEventually(() => slow.cancellations.length === 1, { message: 'the owner was never told' });
    expect(slow.cancellations[0]).toEqual({
      taskId: assignment.taskId,
      reason: `The task passed its deadline of ${DEADLINE_SECONDS} s`,
    });
    const late = await slow.report(assignment.taskId, 'completed', 'finally');
    expect(late.ok === false && late.error.code).toBe('INVALID_STATE');
  });

  it('retries a delivery nobody answers or the agent declines, then fails the task', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const absent = await harness.registerAgent(anAgent(CODE_RUNNER, { name: 'absent-runner' }));
    const busy = await harness.registerAgent(anAgent(CODE_RUNNER, { name: 'busy-runner' }));
    absent.stopServingTasks();
    busy.onTask = () => ({ accepted: false, reason: 'too busy' });
    lead.onTurn = (turn) =>
      turn.tasks.length === 0
        ? {
            type: 'sync_task_assign',
            tasks: [
              { assigneeId: absent.id, description: 'Do it.', abstract: 'Absent' },
              { assigneeId: busy.id, description: 'Do it too.', abstract: 'Busy' },
            ],
          }
        : { type: 'conclude', content: turn.tasks.map((task) => task.state).join(', ') };

    const goal = await submit('Do two things', [lead, absent, busy]);
    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.conclusion).toBe('failed, failed');
    const [toAbsent, toBusy] = done.tasks;
    expect(toAbsent).toMatchObject({
      state: 'failed',
      attempts: 3,
      statusMessage: `Could not deliver the task to ${absent.name} after 3 attempts: ${absent.name} is not answering on its task subject`,
    });
    expect(toBusy).toMatchObject({
      state: 'failed',
      attempts: 3,
      statusMessage: `Could not deliver the task to ${busy.name} after 3 attempts: ${busy.name} declined the task: too busy`,
    });
    expect(busy.assignments.map((assignment) => assignment.attempt)).toEqual([1, 2, 3]);
  });

  it('lets only the assignee report, and only what the task state allows', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    const worker = await harness.registerAgent(anAgent(CODE_RUNNER));
    lead.onTurn = (turn) =>
      turn.tasks.length === 0
        ? { type: 'sync_task_assign', tasks: [{ assigneeId: worker.id, description: 'Work.', abstract: 'Work' }] }
        : { type: 'conclude', content: 'Done.' };
    worker.onTask = () => ({ accepted: true });
    const goal = await submit('Work', [lead, worker]);
    const { taskId } = await worker.assignment();

    const impostor = await lead.report(taskId, 'completed', 'I did it');
    expect(impostor.ok === false && impostor.error.code).toBe('FORBIDDEN');
    const unknown = await worker.report(randomUUID(), 'completed', 'what task?');
    expect(unknown.ok === false && unknown.error.code).toBe('NOT_FOUND');
    expect(
      (await worker.report(taskId, 'working', 'half way', { promptTokens: 7, completionTokens: 3, modelCalls: 1 })).ok,
    ).toBe(true);
    expect((await worker.report(taskId, 'completed', 'done')).ok).toBe(true);
    const contradiction = await worker.report(taskId, 'failed', 'actually no');
    expect(contradiction.ok === false && contradiction.error).toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringContaining('already completed'),
    });
    expect(await harness.ok(GetTaskV1, { taskId })).toMatchObject({
      state: 'completed',
      result: 'done',
      statusMessage: 'half way',
    });
    // The report's usage counted towards the goal.
    const done = await harness.goalIn(goal.id, 'completed');
    expect(done.usage.promptTokens).toBeGreaterThanOrEqual(7);
  });
});
