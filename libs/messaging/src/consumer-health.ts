/** What the server says about one durable consumer, reduced to what decides whether it is stuck. */
export interface ConsumerCounts {
  /** Events in the stream not yet delivered to the consumer. */
  pending: number;
  /** Events delivered and not yet acknowledged (including those waiting out a retry delay). */
  ackPending: number;
  maxAckPending: number;
}

/** How long since the consumer's handler last got an event, and how long the one it has now has been running. */
export interface ConsumerProgress {
  msSinceDelivery: number;
  /** 0 when no handler is running. */
  msHandling: number;
}

/**
 * Why a consumer counts as stuck, or undefined when it is not. Stuck means events wait and none moves:
 *
 * - `ackPending` has reached `maxAckPending`: the server delivers nothing more until something is acknowledged;
 * - one handler has been running for `stuckAfterMs`: whatever this consumer holds waits behind it;
 * - events are pending and none has been delivered for `stuckAfterMs`: a consumer that stopped pulling.
 *
 * A poison event being retried is not "stuck": later events keep flowing past it, and it ends as a dead letter.
 */
export function stuckReason(
  counts: ConsumerCounts,
  progress: ConsumerProgress,
  stuckAfterMs: number,
): string | undefined {
  if (counts.maxAckPending > 0 && counts.ackPending >= counts.maxAckPending) {
    return (
      `ack-pending is at its limit (${counts.ackPending} of ${counts.maxAckPending}): ` +
      'the server delivers nothing more until one is acknowledged'
    );
  }
  if (progress.msHandling >= stuckAfterMs) {
    return `one event has been in its handler for ${Math.round(progress.msHandling / 1000)} s`;
  }
  if (counts.pending > 0 && progress.msSinceDelivery >= stuckAfterMs) {
    return `${counts.pending} events wait and none was delivered for ${Math.round(progress.msSinceDelivery / 1000)} s`;
  }
  return undefined;
}
