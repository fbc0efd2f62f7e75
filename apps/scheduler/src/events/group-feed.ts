import type { GroupStateChangedV1Event, MessagePostedV1Event } from '@ioa/contracts';

/**
 * A group's events put back in chat's order before the goal sees them.
 *
 * Chat numbers a group's messages 1, 2, 3… and a state change carries the group's `lastSeq`: the change happened
 * after message `lastSeq` and before message `lastSeq + 1`. The scheduler receives messages and state changes
 * through different JetStream consumers (one per subject), shared by its replicas, so they can arrive in any order:
 * the `concluded` change before the concluding message, message 5 before message 4. The goal's event log (what SSE
 * clients read) must hold them in chat's order, without gaps and without duplicates.
 *
 * Pure: the feed (how far the group is logged, and what arrived ahead of a gap) and an arrival in, what to apply
 * now and the feed after out. An event that arrives ahead of a gap is held and acknowledged — nothing waits on a
 * redelivery — and is released by the arrival that fills the gap. A gap that has held events for `gapTimeoutMs`
 * is given up on (the missing message was dead-lettered; a replay logs it late), so a message that never comes
 * cannot hold a goal for ever.
 */

export type GroupFeedEvent =
  { kind: 'message'; event: MessagePostedV1Event } | { kind: 'state'; event: GroupStateChangedV1Event };

/** An event that arrived ahead of a gap, with when it was held (ISO time: the feed is stored as JSON). */
export interface HeldGroupEvent {
  arrival: GroupFeedEvent;
  heldSince: string;
}

export interface GroupFeed {
  /** The highest message seq up to which the group's messages are logged (every one before it too, or given up). */
  loggedSeq: number;
  held: HeldGroupEvent[];
}

export interface GroupFeedDecision {
  /** Events to apply now, in this order. */
  release: GroupFeedEvent[];
  /** The feed once they are applied. */
  feed: GroupFeed;
  /** Message seqs given up on (a gap timed out): logged late if they ever come. */
  skipped: number[];
}

/**
 * Where an event goes in the group's order: message `seq` at `seq`, a state change right after message `lastSeq`.
 * Changes with the same `lastSeq` (no message between them) go by chat's `updatedAt`.
 */
function orderOf(arrival: GroupFeedEvent): [position: number, after: 0 | 1, at: string] {
  return arrival.kind === 'message'
    ? [arrival.event.message.seq, 0, '']
    : [arrival.event.group.lastSeq, 1, arrival.event.group.updatedAt];
}

function compareArrivals(a: GroupFeedEvent, b: GroupFeedEvent): number {
  const [positionA, afterA, atA] = orderOf(a);
  const [positionB, afterB, atB] = orderOf(b);
  return positionA - positionB || afterA - afterB || atA.localeCompare(atB);
}

/** The group id an event of the feed belongs to. */
export function groupIdOf(arrival: GroupFeedEvent): string {
  return arrival.kind === 'message' ? arrival.event.message.groupId : arrival.event.group.id;
}

/**
 * Takes an arrival (or none: the sweeper's look at a feed with held events) and says what can be applied now.
 * A message is ready when every message before it is logged (a duplicate or a late one is ready at once: the log
 * de-duplicates by its source key); a state change is ready when every message up to its `lastSeq` is.
 */
export function orderGroupEvents(
  feed: GroupFeed,
  arrival: GroupFeedEvent | null,
  now: Date,
  gapTimeoutMs: number,
): GroupFeedDecision {
  const waiting: HeldGroupEvent[] = [...feed.held];
  if (arrival) waiting.push({ arrival, heldSince: now.toISOString() });
  waiting.sort((a, b) => compareArrivals(a.arrival, b.arrival));
  const oldest = Math.min(...waiting.map((entry) => Date.parse(entry.heldSince)));
  const givenUp = feed.held.length > 0 && now.getTime() - oldest >= gapTimeoutMs;

  let loggedSeq = feed.loggedSeq;
  const release: GroupFeedEvent[] = [];
  const skipped: number[] = [];
  let index = 0;
  for (; index < waiting.length; index += 1) {
    const { arrival: next } = waiting[index];
    const needed = next.kind === 'message' ? next.event.message.seq - 1 : next.event.group.lastSeq;
    if (needed > loggedSeq) {
      if (!givenUp) break;
      for (let seq = loggedSeq + 1; seq <= needed; seq += 1) skipped.push(seq);
      loggedSeq = needed;
    }
    release.push(next);
    if (next.kind === 'message') loggedSeq = Math.max(loggedSeq, next.event.message.seq);
  }
  return { release, feed: { loggedSeq, held: waiting.slice(index) }, skipped };
}
