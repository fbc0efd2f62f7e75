import type { GroupState, GroupStateChangedV1Event, MessagePostedV1Event } from '@ioa/contracts';
import { orderGroupEvents, type GroupFeed, type GroupFeedEvent } from './group-feed.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const GAP_TIMEOUT_MS = 30_000;
const GROUP = '10000000-0000-4000-8000-000000000001';
const GOAL = '20000000-0000-4000-8000-000000000001';

function message(seq: number): GroupFeedEvent {
  const event = {
    goalId: GOAL,
    message: { id: `30000000-0000-4000-8000-${String(seq).padStart(12, '0')}`, groupId: GROUP, seq },
  } as MessagePostedV1Event;
  return { kind: 'message', event };
}

function stateChange(state: GroupState, lastSeq: number, updatedAt = '2026-01-01T11:59:00.000Z'): GroupFeedEvent {
  const event = {
    group: { id: GROUP, goalId: GOAL, state, lastSeq, updatedAt },
    previousState: 'discussing',
    reason: state,
  } as GroupStateChangedV1Event;
  return { kind: 'state', event };
}

function newFeed(overrides: Partial<GroupFeed> = {}): GroupFeed {
  return { loggedSeq: 0, held: [], ...overrides };
}

function held(arrival: GroupFeedEvent, heldSince = NOW): GroupFeed['held'][number] {
  return { arrival, heldSince: heldSince.toISOString() };
}

/** A readable order: `m3` for message 3, `concluded@3` for a change after message 3. */
function names(events: GroupFeedEvent[]): string[] {
  return events.map((entry) =>
    entry.kind === 'message'
      ? `m${entry.event.message.seq}`
      : `${entry.event.group.state}@${entry.event.group.lastSeq}`,
  );
}

describe("group feed: a group's events in chat order, however they arrive", () => {
  it('applies the next message at once', () => {
    const decision = orderGroupEvents(newFeed({ loggedSeq: 2 }), message(3), NOW, GAP_TIMEOUT_MS);
    expect(names(decision.release)).toEqual(['m3']);
    expect(decision.feed).toEqual({ loggedSeq: 3, held: [] });
  });

  it('holds a conclusion that overtook the concluding message, and releases both in order when it arrives', () => {
    const early = orderGroupEvents(newFeed({ loggedSeq: 4 }), stateChange('concluded', 5), NOW, GAP_TIMEOUT_MS);
    expect(early.release).toEqual([]);
    expect(early.feed.loggedSeq).toBe(4);
    expect(names(early.feed.held.map((entry) => entry.arrival))).toEqual(['concluded@5']);

    const filled = orderGroupEvents(early.feed, message(5), NOW, GAP_TIMEOUT_MS);
    expect(names(filled.release)).toEqual(['m5', 'concluded@5']);
    expect(filled.feed).toEqual({ loggedSeq: 5, held: [] });
  });

  it('puts messages that arrive out of order back in seq order', () => {
    let feed = newFeed({ loggedSeq: 1 });
    const released: GroupFeedEvent[] = [];
    for (const arrival of [message(4), message(3), message(2)]) {
      const decision = orderGroupEvents(feed, arrival, NOW, GAP_TIMEOUT_MS);
      released.push(...decision.release);
      feed = decision.feed;
    }
    expect(names(released)).toEqual(['m2', 'm3', 'm4']);
    expect(feed).toEqual({ loggedSeq: 4, held: [] });
  });

  it('applies a state change once the messages up to its lastSeq are in, before the message after it', () => {
    const feed = newFeed({ loggedSeq: 1, held: [held(message(3)), held(stateChange('paused', 2))] });
    const decision = orderGroupEvents(feed, message(2), NOW, GAP_TIMEOUT_MS);
    expect(names(decision.release)).toEqual(['m2', 'paused@2', 'm3']);
  });

  it("orders changes without a message between them by chat's updatedAt", () => {
    const first = stateChange('awaiting_sync_tasks', 3, '2026-01-01T11:59:01.000Z');
    const second = stateChange('discussing', 3, '2026-01-01T11:59:02.000Z');
    const feed = newFeed({ loggedSeq: 2, held: [held(second), held(first)] });
    const decision = orderGroupEvents(feed, message(3), NOW, GAP_TIMEOUT_MS);
    expect(names(decision.release)).toEqual(['m3', 'awaiting_sync_tasks@3', 'discussing@3']);
  });

  it('passes a duplicate or late message through at once (the log de-duplicates it by its source key)', () => {
    const decision = orderGroupEvents(newFeed({ loggedSeq: 5 }), message(3), NOW, GAP_TIMEOUT_MS);
    expect(names(decision.release)).toEqual(['m3']);
    expect(decision.feed.loggedSeq).toBe(5);
  });

  it('applies a state change that needs no message at once, even the first event of a group', () => {
    const decision = orderGroupEvents(newFeed(), stateChange('discussing', 0), NOW, GAP_TIMEOUT_MS);
    expect(names(decision.release)).toEqual(['discussing@0']);
  });

  it('keeps holding while the gap is younger than the timeout', () => {
    const since = new Date(NOW.getTime() - GAP_TIMEOUT_MS + 1);
    const feed = newFeed({ loggedSeq: 1, held: [held(message(3), since)] });
    const decision = orderGroupEvents(feed, null, NOW, GAP_TIMEOUT_MS);
    expect(decision.release).toEqual([]);
    expect(decision.feed).toEqual(feed);
    expect(decision.skipped).toEqual([]);
  });

  it('gives up on a gap that held events for the timeout: everything held is released in order, and says what', () => {
    const since = new Date(NOW.getTime() - GAP_TIMEOUT_MS);
    const feed = newFeed({
      loggedSeq: 1,
      held: [held(stateChange('concluded', 5), since), held(message(5), since), held(message(3), since)],
    });
    const decision = orderGroupEvents(feed, null, NOW, GAP_TIMEOUT_MS);
    expect(names(decision.release)).toEqual(['m3', 'm5', 'concluded@5']);
    expect(decision.skipped).toEqual([2, 4]);
    expect(decision.feed).toEqual({ loggedSeq: 5, held: [] });

    // The missing message, if it ever comes (a replayed dead letter), is logged late rather than lost.
    expect(names(orderGroupEvents(decision.feed, message(2), NOW, GAP_TIMEOUT_MS).release)).toEqual(['m2']);
  });

  it('does not count the arrival itself as a held event when deciding whether a gap timed out', () => {
    const decision = orderGroupEvents(newFeed({ loggedSeq: 1 }), message(3), NOW, 0);
    expect(decision.release).toEqual([]);
    expect(names(decision.feed.held.map((entry) => entry.arrival))).toEqual(['m3']);
  });
});
