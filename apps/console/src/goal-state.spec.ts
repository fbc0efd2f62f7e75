import { describe, expect, it } from '@jest/globals';
import type { GoalEventV1 } from '@ioa/contracts';
import { applyGoalEvent, EMPTY_GOAL, hasEnded, openQuestion, type LiveGoal } from './goal-state.js';

const GOAL = '10000000-0000-4000-8000-000000000001';
const GROUP = '20000000-0000-4000-8000-000000000002';
const LEAD = '30000000-0000-4000-8000-000000000003';

function event(seq: number, type: GoalEventV1['type'], data: object): GoalEventV1 {
  return { goalId: GOAL, seq, type, data: data as Record<string, unknown>, at: new Date(seq * 1000).toISOString() };
}

function message(seq: number, content: string, nextSpeaker?: string) {
  return {
    id: `m${seq}`,
    groupId: GROUP,
    seq,
    type: 'discussion',
    senderId: LEAD,
    senderName: 'lead',
    content,
    turn: 1,
    createdAt: '',
    ...(nextSpeaker ? { nextSpeaker } : {}),
  };
}

const TASK = {
  id: 't1',
  goalId: GOAL,
  assigneeId: LEAD,
  assigneeName: 'lead',
  state: 'working',
  result: null,
};

/** A recorded stream: team, two messages (the second asks the person), a task in two states, the group's state. */
const STREAM: GoalEventV1[] = [
  event(1, 'status', { status: 'forming_team', previousStatus: 'submitted', statusReason: null }),
  event(2, 'team', { members: [{ agentId: LEAD, name: 'lead', reason: 'writes' }], leaderId: LEAD }),
  event(3, 'message', message(1, 'Group formed')),
  event(4, 'task', TASK),
  event(5, 'message', message(2, 'Which language?', 'user')),
  event(6, 'status', { status: 'input_required', previousStatus: 'working', statusReason: null }),
  event(7, 'task', { ...TASK, state: 'completed', result: 'done' }),
  event(8, 'group', {
    group: {
      state: 'discussing',
      turn: 2,
      maxTurns: 12,
      currentSpeaker: 'user',
      awaitingTaskIds: [],
      conclusion: null,
    },
    previousState: 'discussing',
    reason: 'asked',
  }),
];

const replay = (events: GoalEventV1[], from: LiveGoal = EMPTY_GOAL) => events.reduce(applyGoalEvent, from);

describe('the goal page’s view of the event stream', () => {
  it('builds the team, the chat in order, each task in its latest state, and the group’s state', () => {
    const view = replay(STREAM);
    expect(view.lastSeq).toBe(8);
    expect(view.team.map((member) => member.name)).toEqual(['lead']);
    expect(view.leaderId).toBe(LEAD);
    expect(view.messages.map((entry) => entry.content)).toEqual(['Group formed', 'Which language?']);
    expect(view.tasks).toEqual([expect.objectContaining({ id: 't1', state: 'completed', result: 'done' })]);
    expect(view.group).toMatchObject({ state: 'discussing', currentSpeaker: 'user' });
    expect(view.status).toBe('input_required');
  });

  it('shows the open question only while the goal waits for the person', () => {
    expect(openQuestion(replay(STREAM))?.content).toBe('Which language?');
    const answered = replay(
      [event(9, 'status', { status: 'working', previousStatus: 'input_required', statusReason: null })],
      replay(STREAM),
    );
    expect(openQuestion(answered)).toBeUndefined();
  });

  it('ignores an event it already has: a resumed stream that repeats events changes nothing', () => {
    const once = replay(STREAM);
    const resumed = replay([...STREAM.slice(4), ...STREAM], replay(STREAM.slice(0, 6)));
    expect(resumed).toEqual(once);
    expect(applyGoalEvent(once, STREAM[2])).toBe(once);
  });

  it('keeps one copy of a message delivered again under a later seq', () => {
    const view = replay([...STREAM, event(9, 'message', message(2, 'Which language?', 'user'))]);
    expect(view.messages).toHaveLength(2);
    expect(view.lastSeq).toBe(9);
  });

  it('knows which statuses end a goal', () => {
    expect(['completed', 'failed', 'canceled'].every((status) => hasEnded(status as never))).toBe(true);
    expect(hasEnded('input_required')).toBe(false);
    expect(hasEnded(undefined)).toBe(false);
  });
});
