import {
  AgentCameOnlineV1,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentWentOfflineV1,
  GoalStatusChangedV1,
  type GoalStatusChangedV1Event,
} from '@ioa/contracts';

/** What the feed reports (the SSE `event:` of each entry). */
export const FEED_EVENT_TYPES = [
  'agent.registered',
  'agent.updated',
  'agent.came-online',
  'agent.went-offline',
  'agent.deregistered',
  'goal.submitted',
  'goal.status-changed',
  'goal.completed',
  'goal.failed',
  'goal.canceled',
] as const;
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

/** The registry events the feed reads, by subject. */
export const FEED_AGENT_EVENTS: ReadonlyMap<string, FeedEventType> = new Map([
  [AgentRegisteredV1.subject, 'agent.registered'],
  [AgentUpdatedV1.subject, 'agent.updated'],
  [AgentCameOnlineV1.subject, 'agent.came-online'],
  [AgentWentOfflineV1.subject, 'agent.went-offline'],
  [AgentDeregisteredV1.subject, 'agent.deregistered'],
]);

/** The scheduler event the feed reads: a goal's status (or status reason) changed, including its submission. */
export const FEED_GOAL_EVENT_SUBJECT = GoalStatusChangedV1.subject;

/** The feed's name for a goal status change: its start and its three endings are named, the rest are changes. */
export function goalFeedEventType(event: GoalStatusChangedV1Event): FeedEventType {
  switch (event.goal.status) {
    case 'submitted':
      return 'goal.submitted';
    case 'completed':
      return 'goal.completed';
    case 'failed':
      return 'goal.failed';
    case 'canceled':
      return 'goal.canceled';
    case 'forming_team':
    case 'working':
    case 'input_required':
      return 'goal.status-changed';
  }
}

/**
 * The `data` of a feed event: what happened, when the stream stored it, and the contract event's payload as
 * published (`AgentChangedV1Event`, `AgentPresenceChangedV1Event`, `AgentDeregisteredV1Event` or
 * `GoalStatusChangedV1Event`), so a client reads it with the contract's own types.
 */
export interface FeedEventData {
  type: FeedEventType;
  subject: string;
  at: string;
  payload: unknown;
}
