import 'reflect-metadata';
import type { TaskBriefV1, TaskState } from '@ioa/contracts';
import {
  assigneeWentOffline,
  assignTask,
  attachSubGoal,
  cancelForEndedGoal,
  changeTask,
  deliveryAcknowledged,
  deliveryFailed,
  expireDeadline,
  refuseForEndedGoal,
  reportTask,
  settleFromSubGoal,
  startDelivery,
  type TaskDecision,
  type TaskRejection,
  type TaskSnapshot,
  type TaskTransition,
} from './task-state-machine.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const CREATED = new Date('2026-01-01T11:58:00.000Z');
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const POLICY = { attempts: 3, backoffMs: 500 };

function newTask(overrides: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    id: '30000000-0000-4000-8000-000000000001',
    state: 'submitted',
    result: null,
    statusMessage: null,
    brief: null,
    assigneeId: BOB,
    assigneeName: 'bob',
    deadline: new Date(CREATED.getTime() + 120_000),
    attempts: 0,
    nextDispatchAt: CREATED,
    childGoalId: null,
    version: 1,
    updatedAt: CREATED,
    startedAt: null,
    completedAt: null,
    createdAt: CREATED,
    ...overrides,
  };
}

function newBrief(): TaskBriefV1 {
  return { abstract: 'Sum it', inputs: '', description: 'Add 1 and 1', completionCriteria: 'A number' };
}

function expectTransition(decision: TaskDecision): TaskTransition {
  if (decision.outcome !== 'transition') throw new Error(`expected a transition, got ${JSON.stringify(decision)}`);
  return decision;
}

function expectRejection(
  decision: TaskDecision,
  code: TaskRejection['code'],
  rule: TaskRejection['rule'],
): TaskRejection {
  expect(decision).toMatchObject({ outcome: 'rejected', code, rule });
  expect((decision as TaskRejection).reason.length).toBeGreaterThan(10);
  return decision as TaskRejection;
}

const report = (state: 'working' | 'input-required' | 'completed' | 'failed' | 'rejected', content?: string) => ({
  agentId: BOB,
  state,
  content,
});

describe('every change of a task', () => {
  it('raises the version and moves updatedAt strictly forward, even within one millisecond', () => {
    const task = newTask({ updatedAt: NOW });
    const transition = changeTask(task, { statusMessage: 'x' }, NOW);
    expect(transition.task.version).toBe(2);
    expect(transition.task.updatedAt).toEqual(new Date(NOW.getTime() + 1));
    expect(changeTask(newTask(), {}, NOW).task.updatedAt).toEqual(NOW);
  });

  it('stamps startedAt on the first working, and completedAt on the end, which also ends delivery', () => {
    const started = changeTask(newTask(), { state: 'working' }, NOW).task;
    expect(started.startedAt).toEqual(NOW);
    expect(
      changeTask(newTask({ ...started, state: 'input-required' }), { state: 'working' }, CREATED).task.startedAt,
    ).toEqual(NOW);
    const done = changeTask(newTask(), { state: 'completed' }, NOW).task;
    expect(done).toMatchObject({ completedAt: NOW, nextDispatchAt: null });
  });

  it('tells the assignee it had before the change, when asked to', () => {
    const moved = changeTask(newTask(), { assigneeId: CAROL }, NOW, 'moved');
    expect(moved.tellAssignee).toEqual({ agentId: BOB, reason: 'moved' });
    expect(changeTask(newTask(), {}, NOW).tellAssignee).toBeNull();
  });

  it('leaves the snapshot it was given unchanged', () => {
    const task = newTask();
    const before = structuredClone(task);
    changeTask(task, { state: 'completed', result: 'r' }, NOW);
    reportTask(task, report('working', 'on it'), NOW);
    expect(task).toEqual(before);
  });
});

describe('assignment', () => {
  const assignment = {
    id: '30000000-0000-4000-8000-000000000002',
    goalId: '20000000-0000-4000-8000-000000000001',
    groupId: '10000000-0000-4000-8000-000000000001',
    parentTaskId: null,
    assignerId: CAROL,
    assigneeId: BOB,
    assigneeName: 'bob',
    mode: 'async' as const,
    description: 'Add 1 and 1',
    abstract: 'Sum it',
    messageId: '40000000-0000-4000-8000-000000000001',
  };

  it('creates a submitted task, due for delivery now, with its deadline counted from now', () => {
    const creation = assignTask(assignment, 'working', 120, NOW);
    expect(creation.refusal).toBeNull();
    expect(creation.task).toMatchObject({
      ...assignment,
      state: 'submitted',
      brief: null,
      attempts: 0,
      nextDispatchAt: NOW,
      deadline: new Date(NOW.getTime() + 120_000),
      version: 1,
      createdAt: NOW,
      startedAt: null,
      completedAt: null,
    });
  });

  it('records a task assigned after its goal ended, and cancels it at once: it never runs', () => {
    const creation = assignTask(assignment, 'canceled', 120, NOW);
    expect(creation.task.state).toBe('submitted');
    expect(creation.refusal?.task).toMatchObject({
      state: 'canceled',
      statusMessage: 'The goal has canceled',
      nextDispatchAt: null,
      version: 2,
    });
    expect(creation.refusal?.tellAssignee).toBeNull();
  });
});

describe('what an assignee’s report does', () => {
  it('starts a submitted task with a progress note; the task has arrived, so delivery ends', () => {
    const transition = expectTransition(reportTask(newTask(), report('working', 'on it'), NOW));
    expect(transition.task).toMatchObject({
      state: 'working',
      statusMessage: 'on it',
      nextDispatchAt: null,
      startedAt: NOW,
    });
  });

  it('accepts a new progress note on a working task, and ignores the same report twice', () => {
    const task = newTask({ state: 'working', statusMessage: 'half way' });
    expect(reportTask(task, report('working', 'almost'), NOW)).toMatchObject({ outcome: 'transition' });
    expect(reportTask(task, report('working', 'half way'), NOW)).toMatchObject({ outcome: 'unchanged' });
    expect(reportTask(task, report('working'), NOW)).toMatchObject({ outcome: 'unchanged' });
    const asked = expectTransition(reportTask(task, report('input-required', 'which format?'), NOW));
    expect(asked.task).toMatchObject({ state: 'input-required', statusMessage: 'which format?' });
  });

  it('completes with the content as the result (empty when there is none)', () => {
    expect(
      expectTransition(reportTask(newTask({ state: 'working' }), report('completed', '42'), NOW)).task,
    ).toMatchObject({
      state: 'completed',
      result: '42',
      completedAt: NOW,
    });
    expect(expectTransition(reportTask(newTask(), report('completed'), NOW)).task.result).toBe('');
  });

  it('fails or rejects with the reason, and says so when none was given', () => {
    expect(expectTransition(reportTask(newTask(), report('rejected', 'not my skill'), NOW)).task).toMatchObject({
      state: 'rejected',
      statusMessage: 'not my skill',
    });
    expect(expectTransition(reportTask(newTask(), report('failed'), NOW)).task.statusMessage).toBe(
      'The assignee reported failed without a reason',
    );
  });

  it('accepts the same terminal report again without change (a retried report)', () => {
    const done = newTask({ state: 'completed', result: '42' });
    expect(reportTask(done, report('completed', '43'), NOW)).toMatchObject({ outcome: 'unchanged' });
  });

  it('refuses a different report on a finished task', () => {
    const rejection = expectRejection(
      reportTask(newTask({ state: 'completed' }), report('failed', 'oops'), NOW),
      'INVALID_STATE',
      'TASK_FINISHED',
    );
    expect(rejection.reason).toContain('already completed');
  });

  it('refuses any report on a canceled task, telling the agent to stop', () => {
    for (const state of ['working', 'completed', 'failed'] as const) {
      const canceled = newTask({ state: 'canceled', statusMessage: 'goal canceled' });
      const rejection = expectRejection(reportTask(canceled, report(state), NOW), 'INVALID_STATE', 'TASK_CANCELED');
      expect(rejection.reason).toContain('stop working on it');
    }
  });

  it('refuses a report from anyone but the assignee', () => {
    expectRejection(
      reportTask(newTask(), { ...report('completed', 'mine'), agentId: CAROL }, NOW),
      'FORBIDDEN',
      'NOT_ASSIGNEE',
    );
  });
});

describe('delivery', () => {
  it('records the brief and the attempt before the agent sees the task', () => {
    const transition = expectTransition(startDelivery(newTask(), newBrief(), POLICY, NOW));
    expect(transition.task).toMatchObject({
      brief: newBrief(),
      attempts: 1,
      statusMessage: 'Delivering to bob (attempt 1 of 3)',
    });
  });

  it('keeps a brief written by an earlier attempt', () => {
    const earlier = { ...newBrief(), abstract: 'The first brief' };
    const transition = expectTransition(
      startDelivery(newTask({ brief: earlier, attempts: 1 }), newBrief(), POLICY, NOW),
    );
    expect(transition.task.brief).toEqual(earlier);
  });

  it('starts no attempt once the task is no longer submitted', () => {
    expect(startDelivery(newTask({ state: 'working' }), newBrief(), POLICY, NOW)).toMatchObject({
      outcome: 'unchanged',
    });
  });

  it('ends delivery once the assignee acknowledged, as bookkeeping nobody else sees', () => {
    const delivering = newTask({ attempts: 1, nextDispatchAt: new Date(NOW.getTime() + 30_000) });
    const transition = expectTransition(deliveryAcknowledged(delivering));
    expect(transition.visible).toBe(false);
    expect(transition.tellAssignee).toBeNull();
    expect(transition.task).toEqual({ ...delivering, id: undefined, createdAt: undefined, nextDispatchAt: null });
  });

  it('has nothing to acknowledge once the assignee reported, or when no delivery is due', () => {
    expect(deliveryAcknowledged(newTask({ state: 'working', nextDispatchAt: null }))).toMatchObject({
      outcome: 'unchanged',
    });
    expect(deliveryAcknowledged(newTask({ nextDispatchAt: null }))).toMatchObject({ outcome: 'unchanged' });
  });

  it('makes every other change visible: a log entry and TaskUpdatedV1, with the version bumped', () => {
    const transition = expectTransition(deliveryFailed(newTask({ attempts: 1 }), 'no answer', POLICY, NOW));
    expect(transition.visible).toBe(true);
    expect(transition.task.version).toBe(2);
  });

  it('retries a failed attempt with a doubling backoff', () => {
    const first = expectTransition(deliveryFailed(newTask({ attempts: 1 }), 'no answer', POLICY, NOW));
    expect(first.task.nextDispatchAt).toEqual(new Date(NOW.getTime() + 500));
    expect(first.task.state).toBe('submitted');
    const second = expectTransition(deliveryFailed(newTask({ attempts: 2 }), 'no answer', POLICY, NOW));
    expect(second.task.nextDispatchAt).toEqual(new Date(NOW.getTime() + 1000));
    expect(second.task.statusMessage).toBe('Delivery attempt 2 failed (no answer); retrying in 1000 ms');
  });

  it('fails the task after the last attempt', () => {
    const transition = expectTransition(deliveryFailed(newTask({ attempts: 3 }), 'no answer', POLICY, NOW));
    expect(transition.task).toMatchObject({
      state: 'failed',
      nextDispatchAt: null,
      statusMessage: 'Could not deliver the task to bob after 3 attempts: no answer',
    });
  });

  it('changes nothing when the agent reported meanwhile (a slow acknowledgement)', () => {
    expect(deliveryFailed(newTask({ state: 'working', attempts: 3 }), 'late', POLICY, NOW)).toMatchObject({
      outcome: 'unchanged',
    });
  });
});

describe('deadlines, presence and the goal', () => {
  it('fails an open task past its deadline and tells its assignee', () => {
    const late = newTask({ state: 'working', deadline: new Date(NOW.getTime() - 1) });
    const transition = expectTransition(expireDeadline(late, NOW));
    expect(transition.task).toMatchObject({ state: 'failed', statusMessage: 'No result within the deadline of 120 s' });
    expect(transition.tellAssignee).toEqual({ agentId: BOB, reason: 'The task passed its deadline of 120 s' });
  });

  it('leaves a task alone before its deadline, or once it is finished', () => {
    expect(expireDeadline(newTask({ deadline: new Date(NOW.getTime() + 1) }), NOW)).toMatchObject({
      outcome: 'unchanged',
    });
    const done = newTask({ state: 'completed', deadline: CREATED });
    expect(expireDeadline(done, NOW)).toMatchObject({ outcome: 'unchanged' });
  });

  it('fails the tasks of an assignee that went offline, or re-assigns them to an online teammate', () => {
    const working = newTask({ state: 'working', attempts: 1, startedAt: CREATED, nextDispatchAt: null });
    const failed = expectTransition(assigneeWentOffline(working, null, 60, NOW));
    expect(failed.task).toMatchObject({ state: 'failed', statusMessage: 'bob went offline before finishing the task' });
    expect(failed.tellAssignee?.agentId).toBe(BOB);

    const carol = { agentId: CAROL, name: 'carol', reason: 'writes too' };
    const moved = expectTransition(assigneeWentOffline(working, carol, 60, NOW));
    expect(moved.task).toMatchObject({
      state: 'submitted',
      assigneeId: CAROL,
      assigneeName: 'carol',
      attempts: 0,
      startedAt: null,
      nextDispatchAt: NOW,
      deadline: new Date(NOW.getTime() + 60_000),
      statusMessage: 'bob went offline; re-assigned to carol',
    });
    expect(moved.tellAssignee).toEqual({ agentId: BOB, reason: 'You went offline; the task was re-assigned' });
  });

  it('cancels the open tasks of an ended goal, telling their assignees; finished ones stay', () => {
    const transition = expectTransition(
      cancelForEndedGoal(newTask({ state: 'working' }), 'The goal was canceled', NOW),
    );
    expect(transition.task).toMatchObject({ state: 'canceled', statusMessage: 'The goal was canceled' });
    expect(transition.tellAssignee?.reason).toBe('The goal was canceled');
    for (const state of ['completed', 'failed', 'canceled', 'rejected'] as TaskState[]) {
      expect(cancelForEndedGoal(newTask({ state }), 'x', NOW)).toMatchObject({ outcome: 'unchanged' });
    }
  });

  it('cancels a task assigned after its goal ended, before anyone was told of it', () => {
    const transition = refuseForEndedGoal(newTask(), 'completed', NOW);
    expect(transition.task).toMatchObject({ state: 'canceled', statusMessage: 'The goal has completed' });
    expect(transition.tellAssignee).toBeNull();
  });
});

describe('sub-teams', () => {
  const child = '20000000-0000-4000-8000-000000000009';

  it('links a sub-goal to an open task within the nesting limit', () => {
    const transition = expectTransition(
      attachSubGoal(newTask({ state: 'working' }), { depth: 0, maxDepth: 1 }, child, NOW),
    );
    expect(transition.task.childGoalId).toBe(child);
  });

  it('refuses a sub-team for a finished task, or one nesting too deep', () => {
    expectRejection(
      attachSubGoal(newTask({ state: 'failed' }), { depth: 0, maxDepth: 1 }, child, NOW),
      'INVALID_STATE',
      'TASK_FINISHED',
    );
    const tooDeep = expectRejection(
      attachSubGoal(newTask(), { depth: 1, maxDepth: 1 }, child, NOW),
      'INVALID_STATE',
      'SUB_TEAM_TOO_DEEP',
    );
    expect(tooDeep.reason).toContain('at most 1 deep');
  });

  it('completes the task with the sub-team’s conclusion, or fails it with its reason', () => {
    const working = newTask({ state: 'working', childGoalId: child });
    const completed = { id: child, status: 'completed' as const, conclusion: 'All done', statusReason: null };
    expect(expectTransition(settleFromSubGoal(working, completed, NOW)).task).toMatchObject({
      state: 'completed',
      result: 'All done',
      statusMessage: `Concluded by a sub-team (goal ${child})`,
    });
    const failed = { id: child, status: 'failed' as const, conclusion: null, statusReason: 'nobody' };
    expect(expectTransition(settleFromSubGoal(working, failed, NOW)).task.statusMessage).toBe(
      'The sub-team failed: nobody',
    );
    const canceled = { id: child, status: 'canceled' as const, conclusion: null, statusReason: null };
    expect(expectTransition(settleFromSubGoal(working, canceled, NOW)).task.statusMessage).toBe(
      "The sub-team's goal was canceled: no reason given",
    );
  });

  it('waits while the sub-team works, and leaves a finished task alone', () => {
    const working = newTask({ state: 'working' });
    const busy = { id: child, status: 'working' as const, conclusion: null, statusReason: null };
    expect(settleFromSubGoal(working, busy, NOW)).toMatchObject({ outcome: 'unchanged' });
    const done = { id: child, status: 'completed' as const, conclusion: 'x', statusReason: null };
    expect(settleFromSubGoal(newTask({ state: 'canceled' }), done, NOW)).toMatchObject({ outcome: 'unchanged' });
  });
});
