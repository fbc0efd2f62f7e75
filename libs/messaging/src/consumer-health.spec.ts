import { stuckReason, type ConsumerCounts } from './consumer-health.js';

function counts(overrides: Partial<ConsumerCounts> = {}): ConsumerCounts {
  return { pending: 0, ackPending: 0, maxAckPending: 100, ...overrides };
}

describe('when a stream consumer counts as stuck', () => {
  const stuckAfterMs = 60_000;

  it('is not stuck when idle, however long nothing was delivered', () => {
    expect(stuckReason(counts(), 10 * stuckAfterMs, stuckAfterMs)).toBeUndefined();
  });

  it('is not stuck while events wait but deliveries are recent', () => {
    expect(stuckReason(counts({ pending: 500, ackPending: 16 }), stuckAfterMs - 1, stuckAfterMs)).toBeUndefined();
  });

  it('is stuck when events wait and none was delivered for the threshold', () => {
    expect(stuckReason(counts({ pending: 3 }), stuckAfterMs, stuckAfterMs)).toBe(
      '3 events wait and none was delivered for 60 s',
    );
  });

  it('is stuck when ack-pending has reached its limit, even with recent deliveries', () => {
    expect(stuckReason(counts({ ackPending: 100 }), 0, stuckAfterMs)).toMatch(
      /ack-pending is at its limit \(100 of 100\)/,
    );
  });

  it('is not stuck while poison events wait out their retries below the ack-pending limit', () => {
    expect(stuckReason(counts({ ackPending: 99 }), 0, stuckAfterMs)).toBeUndefined();
  });

  it('ignores the ack-pending rule when the server reports no limit', () => {
    expect(stuckReason(counts({ ackPending: 5, maxAckPending: 0 }), 0, stuckAfterMs)).toBeUndefined();
  });
});
