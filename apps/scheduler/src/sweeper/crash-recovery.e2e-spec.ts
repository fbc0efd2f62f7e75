import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  SubmitGoalV1,
  TaskUpdatedV1,
  type SubmitGoalV1Request,
  type TaskUpdatedV1Event,
  type TaskV1,
} from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import { anAgent, CODE_RUNNER, startScheduler, WRITER, type SchedulerHarness } from '../testing/scheduler-test-kit.js';

describe('recovery: work a crash left behind, and owners replaced when they go offline', () => {
  let harness: SchedulerHarness;

  beforeAll(async () => {
    harness = await startScheduler({ SCHEDULER_REASSIGN_ON_OFFLINE: 'true' });
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it('resumes, at boot, goals a crash left in submitted or forming_team', async () => {
    const lead = await harness.registerAgent(anAgent(WRITER));
    lead.onTurn = () => ({ type: 'conclude', content: 'Recovered and done.' });
    const stranded = { submitted: randomUUID(), forming: randomUUID() };

    await harness.restartScheduler(async () => {
      // What a crash right after the submit's commit (or in the middle of team formation) leaves behind.
      const client = new pg.Client({ connectionString: harness.infrastructure.databaseUrl });
      await client.connect();
      try {
        for (const [id, status, lease] of [
          [stranded.submitted, 'submitted', null],
          [stranded.forming, 'forming_team', new Date(Date.now() - 60_000)],
        ] as const) {
          await client.query(
            `INSERT INTO "scheduler"."goals" ("id", "goal", "status", "requested_members", "max_turns", "depth",
               "max_depth", "round_started_at", "formation_lease_until", "created_at", "updated_at")
             VALUES ($1, 'Finish what was started', $2, $3, 12, 0, 1, now(), $4, now(), now())`,
            [id, status, JSON.stringify([lead.name]), lease],
          );
        }
      } finally {
        await client.end();
      }
    });

    for (const goalId of Object.values(stranded)) {
      const done = await harness.goalIn(goalId, 'completed');
      expect(done).toMatchObject({
        conclusion: 'Recovered and done.',
        team: [expect.objectContaining({ agentId: lead.id })],
      });
    }
  });

  it('re-assigns the tasks of an owner that went offline to an online teammate, when the policy says so', async () => {
    const updates: TaskV1[] = [];
    const watch = harness.external.subscribe(TaskUpdatedV1.subject, {
      callback: (_error, message) => {
        updates.push((JSON.parse(new TextDecoder().decode(message.data)) as TaskUpdatedV1Event).task);
      },
    });
    try {
      const lead = await harness.registerAgent(anAgent(WRITER));
      const flaky = await harness.registerAgent(anAgent(CODE_RUNNER, { name: 'flaky-runner' }));
      lead.onTurn = (turn) =>
        turn.tasks.length === 0
          ? {
              type: 'sync_task_assign',
              tasks: [{ assigneeId: flaky.id, description: 'Run the job.', abstract: 'Job' }],
            }
          : { type: 'conclude', content: `Result: ${turn.tasks[0].result}` };
      flaky.onTask = (assignment) => {
        setImmediate(() => void flaky.report(assignment.taskId, 'working', 'running'));
        return { accepted: true };
      };
      lead.onTask = (assignment) => {
        setImmediate(() => void lead.report(assignment.taskId, 'completed', 'ran it myself'));
        return { accepted: true };
      };

      const goal = await harness.ok(SubmitGoalV1, {
        goal: 'Run the job',
        members: [lead.name, flaky.name],
      } as SubmitGoalV1Request);
      const working = await harness.goalWhen(goal.id, (current) => current.tasks[0]?.state === 'working');
      const taskId = working.tasks[0].id;
      flaky.goSilent();

      const done = await harness.goalIn(goal.id, 'completed');
      expect(done.conclusion).toBe('Result: ran it myself');
      expect(done.tasks[0]).toMatchObject({
        id: taskId,
        assigneeId: lead.id,
        assigneeName: lead.name,
        state: 'completed',
        attempts: 1,
      });
      expect(flaky.cancellations).toEqual([{ taskId, reason: 'You went offline; the task was re-assigned' }]);
      await expectEventually(() => updates.some((update) => update.id === taskId && update.state === 'completed'));
      const handOver = updates.find((update) => update.id === taskId && update.assigneeId === lead.id);
      expect(handOver).toMatchObject({
        state: 'submitted',
        statusMessage: `${flaky.name} went offline; re-assigned to ${lead.name}`,
      });
    } finally {
      watch.unsubscribe();
    }
  });
});
