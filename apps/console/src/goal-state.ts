import type { ChatMessageV1, GoalEventV1, GoalStatus, GroupV1, TaskV1, TeamMemberV1 } from '@ioa/contracts';
import type { GroupData, StatusData, TeamData } from '@ioa/gateway-client';

/** What the goal page shows, built only from the goal's event stream (`GET /v1/goals/:id/events`). */
export interface LiveGoal {
  /** The seq of the last event applied: the stream resumes after it, and an event at or before it is a repeat. */
  lastSeq: number;
  status: GoalStatus | undefined;
  statusReason: string | null;
  team: TeamMemberV1[];
  leaderId: string | undefined;
  /** The group chat, in seq order, each message once. */
  messages: ChatMessageV1[];
  /** Every task of the goal, in the order they first appeared, each in its latest state. */
  tasks: TaskV1[];
  group: Pick<GroupV1, 'state' | 'turn' | 'maxTurns' | 'currentSpeaker' | 'awaitingTaskIds' | 'conclusion'> | undefined;
}

export const EMPTY_GOAL: LiveGoal = {
  lastSeq: 0,
  status: undefined,
  statusReason: null,
  team: [],
  leaderId: undefined,
  messages: [],
  tasks: [],
  group: undefined,
};

/**
 * One event applied to the view: a pure function, so replaying a stream (or a resumed one that repeats an event)
 * always gives the same view. Events arrive in seq order on one stream; one at or before `lastSeq` changes nothing.
 */
export function applyGoalEvent(state: LiveGoal, event: GoalEventV1): LiveGoal {
  if (event.seq <= state.lastSeq) return state;
  const next: LiveGoal = { ...state, lastSeq: event.seq };
  switch (event.type) {
    case 'status': {
      const data = event.data as unknown as StatusData;
      return { ...next, status: data.status, statusReason: data.statusReason };
    }
    case 'team': {
      const data = event.data as unknown as TeamData;
      return { ...next, team: data.members, leaderId: data.leaderId };
    }
    case 'message': {
      const message = event.data as unknown as ChatMessageV1;
      if (state.messages.some((known) => known.id === message.id)) return next;
      return { ...next, messages: [...state.messages, message].sort((a, b) => a.seq - b.seq) };
    }
    case 'task': {
      const task = event.data as unknown as TaskV1;
      const known = state.tasks.findIndex((candidate) => candidate.id === task.id);
      const tasks = known === -1 ? [...state.tasks, task] : state.tasks.map((old, i) => (i === known ? task : old));
      return { ...next, tasks };
    }
    case 'group': {
      const { group } = event.data as unknown as GroupData;
      return { ...next, group };
    }
  }
  return next;
}

/** The question the team asked the person, while the goal waits for an answer. */
export function openQuestion(state: LiveGoal): ChatMessageV1 | undefined {
  if (state.status !== 'input_required') return undefined;
  return state.messages.findLast((message) => message.nextSpeaker === 'user');
}

/** A goal that has ended: no more cancel, follow-ups instead. */
export function hasEnded(status: GoalStatus | undefined): boolean {
  return status === 'completed' || status === 'failed' || status === 'canceled';
}
