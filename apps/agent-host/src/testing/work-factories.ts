import { randomUUID } from 'node:crypto';
import type { GroupMemberV1, TaskAssignmentV1Request, TaskBriefV1, TurnGrantedV1Event } from '@ioa/contracts';

/** Factories with overrides for the work agent-host receives, shared by its specs. */

export function newTaskBrief(overrides: Partial<TaskBriefV1> = {}): TaskBriefV1 {
  return { abstract: 'A task', inputs: '', description: 'Do it', completionCriteria: 'Done', ...overrides };
}

/** An assignment for `agentId`, due in a minute. */
export function newTaskAssignment(
  agentId: string,
  brief: Partial<TaskBriefV1> = {},
  overrides: Partial<TaskAssignmentV1Request> = {},
): TaskAssignmentV1Request {
  return {
    taskId: randomUUID(),
    goalId: randomUUID(),
    groupId: randomUUID(),
    agentId,
    brief: newTaskBrief(brief),
    deadline: new Date(Date.now() + 60_000).toISOString(),
    depth: 0,
    maxDepth: 0,
    attempt: 1,
    ...overrides,
  };
}

/** The first turn of a new group, granted to its first member (the leader), due in a minute. */
export function newTurnGrant(
  members: [GroupMemberV1, ...GroupMemberV1[]],
  overrides: Partial<TurnGrantedV1Event> = {},
): TurnGrantedV1Event {
  return {
    groupId: randomUUID(),
    goalId: randomUUID(),
    goal: 'Run `console.log(6 * 7)`, then find in the documents how presence works, and write a short report.',
    turn: 1,
    maxTurns: 12,
    speakerId: members[0].agentId,
    leaderId: members[0].agentId,
    mustConclude: false,
    reason: 'The group was created; the leader speaks first',
    deadline: new Date(Date.now() + 60_000).toISOString(),
    members,
    recentMessages: [],
    tasks: [],
    ...overrides,
  };
}
