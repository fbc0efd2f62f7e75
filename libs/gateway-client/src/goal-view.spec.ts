import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { GoalEventV1, GoalV1, TaskV1 } from '@ioa/contracts';
import { GoalEventView, oneLine, paint, summarizeGoal } from './goal-view.js';

const GOAL_ID = '6f1c2a3b-0000-4000-8000-000000000001';
const RUNNER = '11111111-0000-4000-8000-000000000001';
const RESEARCHER = '22222222-0000-4000-8000-000000000002';
const TASK = 'aaaaaaaa-0000-4000-8000-00000000000a';
const STARTED_AT = Date.parse('2026-01-01T10:00:00.000Z');

function goalEvent(seq: number, type: GoalEventV1['type'], data: object, offsetMs = 0): GoalEventV1 {
  return {
    goalId: GOAL_ID,
    seq,
    type,
    data: data as Record<string, unknown>,
    at: new Date(STARTED_AT + offsetMs).toISOString(),
  };
}

function newTask(overrides: Partial<TaskV1> = {}): TaskV1 {
  return {
    id: TASK,
    goalId: GOAL_ID,
    groupId: GOAL_ID,
    parentTaskId: null,
    assignerId: RUNNER,
    assigneeId: RESEARCHER,
    assigneeName: 'doc-researcher',
    mode: 'async',
    description: 'find in the documents how agent presence works',
    brief: null,
    state: 'submitted',
    result: null,
    statusMessage: null,
    deadline: null,
    attempts: 0,
    childGoalId: null,
    createdAt: new Date(STARTED_AT).toISOString(),
    updatedAt: new Date(STARTED_AT).toISOString(),
    startedAt: null,
    completedAt: null,
    ...overrides,
  };
}

const plain = () => new GoalEventView({ paint: paint(false), startedAt: STARTED_AT, excerpt: 60 });

describe('GoalEventView', () => {
  it('shows the team with its leader and why each member was chosen', () => {
    const lines = plain().render(
      goalEvent(
        3,
        'team',
        {
          members: [
            { agentId: RUNNER, name: 'code-runner', reason: 'Skill "Run JavaScript" matches' },
            { agentId: RESEARCHER, name: 'doc-researcher', reason: 'Skill "Research documents" matches' },
          ],
          leaderId: RUNNER,
        },
        250,
      ),
    );
    expect(lines[0]).toBe('  +0.3s #3   team     2 member(s): code-runner (leads), doc-researcher');
    expect(lines.slice(1).map((line) => line.trim())).toEqual([
      'code-runner: Skill "Run JavaScript" matches',
      'doc-researcher: Skill "Research documents" matches',
    ]);
  });

  it('names the next speaker and lists the tasks a move hands out', () => {
    const view = plain();
    view.render(
      goalEvent(3, 'team', {
        members: [
          { agentId: RUNNER, name: 'code-runner', reason: 'r' },
          { agentId: RESEARCHER, name: 'doc-researcher', reason: 'r' },
        ],
        leaderId: RUNNER,
      }),
    );
    const lines = view.render(
      goalEvent(6, 'message', {
        senderId: RUNNER,
        senderName: 'code-runner',
        type: 'async_task_assign',
        content: 'Splitting the work.\nI will wait.',
        nextSpeaker: RESEARCHER,
        tasks: [{ taskId: TASK, assigneeId: RESEARCHER, mode: 'async', abstract: 'find how presence works' }],
      }),
    );
    expect(lines[0]).toContain('code-runner [async_task_assign] → doc-researcher  Splitting the work. I will wait.');
    expect(lines[1].trim()).toBe('task aaaaaaaa  async → doc-researcher: find how presence works');
  });

  it('shows a task state with its result, and its brief the first time it appears', () => {
    const view = plain();
    const brief = { abstract: 'Find how presence works', inputs: '', description: 'd', completionCriteria: 'c' };
    const working = view.render(goalEvent(9, 'task', newTask({ state: 'working', brief, statusMessage: 'started' })));
    expect(working[0]).toMatch(/aaaaaaaa {2}doc-researcher async working +started$/);
    expect(working[1].trim()).toBe('brief: Find how presence works');
    const done = view.render(goalEvent(10, 'task', newTask({ state: 'completed', brief, result: 'Heartbeats.' })));
    expect(done).toHaveLength(1);
    expect(done[0]).toMatch(/completed +Heartbeats\.$/);
  });

  it('colours only when asked to', () => {
    const event = goalEvent(1, 'status', { status: 'submitted', previousStatus: null, statusReason: null });
    expect(plain().render(event)[0]).not.toContain('\u001b[');
    const coloured = new GoalEventView({ paint: paint(true), startedAt: STARTED_AT, excerpt: 60 });
    expect(coloured.render(event)[0]).toContain('\u001b[1msubmitted\u001b[22m');
  });
});

describe('summarizeGoal', () => {
  it('lists tasks, prints the conclusion in full and the usage', () => {
    const goal = {
      status: 'completed',
      statusReason: null,
      conclusion: '# Report\n\n- 42',
      tasks: [
        newTask({
          state: 'completed',
          result: '42',
          startedAt: '2026-01-01T10:00:01.000Z',
          completedAt: '2026-01-01T10:00:01.500Z',
        }),
      ],
      usage: { modelCalls: 14, promptTokens: 9560, completionTokens: 1699, seconds: 2 },
    } as unknown as GoalV1;
    const lines = summarizeGoal(goal, { paint: paint(false), excerpt: 60, offlineModel: false });
    expect(lines).toContain('  aaaaaaaa  doc-researcher async completed       0.5 s  42');
    expect(lines).toEqual(expect.arrayContaining(['  # Report', '', '  - 42']));
    expect(lines).toContain('  14 model calls, 11,259 tokens (9,560 prompt + 1,699 completion), 2 s');
  });
});

describe('oneLine', () => {
  it('collapses whitespace and cuts with an ellipsis', () => {
    expect(oneLine('a\n\n b   c', 10)).toBe('a b c');
    expect(oneLine('abcdefghij', 5)).toBe('abcd…');
  });
});
