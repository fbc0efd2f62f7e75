import { stuckReason, type ConsumerCounts } from './consumer-health.js';

function counts(overrides: Partial<ConsumerCounts> = {}): ConsumerCounts {
  return { pending: 0, ackPending: 0, maxAckPending: 100, ...overrides };
}

/** No handler running; the last delivery `msSinceDelivery` ago. */
function idle(msSinceDelivery: number) {
  return { msSinceDelivery, msHandling: 0 };
}

describe('when a stream consumer counts as stuck', () => {
  const stuckAfterMs = 60_000;

  it('is not stuck when idle, however long nothing was delivered', () => {
    expect(stuckReason(counts(), idle(10 * stuckAfterMs), stuckAfterMs)).toBeUndefined();
  });

  it('is not stuck while events wait but deliveries are recent', () => {
    expect(stuckReason(counts({ pending: 500, ackPending: 16 }), idle(stuckAfterMs - 1), stuckAfterMs)).toBeUndefined();
  });

  it('is stuck when events wait and none was delivered for the threshold', () => {
    expect(stuckReason(counts({ pending: 3 }), idle(stuckAfterMs), stuckAfterMs)).toBe(
      '3 events wait and none was delivered for 60 s',
    );
  });

  it('is stuck when ack-pending has reached its limit, even with recent deliveries', () => {
    expect(stuckReason(counts({ ackPending: 100 }), idle(0), stuckAfterMs)).toMatch(
      /ack-pending is at its limit \(100 of 100\)/,
    );
  });

  it('is not stuck while poison events wait out their retries below the ack-pending limit', () => {
    expect(stuckReason(counts({ ackPending: 99 }), idle(0), stuckAfterMs)).toBeUndefined();
  });

  it('is stuck when one handler has been running for the threshold, even with nothing pending', () => {
    expect(stuckReason(counts({ ackPending: 1 }), { msSinceDelivery: 90_000, msHandling: 90_000 }, stuckAfterMs)).toBe(
      'one event has been in its handler for 90 s',
    );
  });

  it('is not stuck while a handler runs for less than the threshold', () => {
    expect(stuckReason(counts({ ackPending: 1 }), { msSinceDelivery: 5_000, msHandling: 5_000 }, stuckAfterMs)).toBe(
      undefined,
    );
  });

  it('ignores the ack-pending rule when the server reports no limit', () => {
    expect(stuckReason(counts({ ackPending: 5, maxAckPending: 0 }), idle(0), stuckAfterMs)).toBeUndefined();
  });
});
