/** How a service's outbox relay runs (`OutboxModule.forService`). */
export interface OutboxOptions {
  /**
   * How often the relay looks for events nobody published: a failed publish, a crashed replica, a flush that took
   * longer than `flushWaitMs`. Events of a unit of work that committed normally do not wait for it.
   */
  retryMs: number;
  /** Rows claimed, published and deleted in one transaction (default 200). */
  batchSize?: number;
  /**
   * How long `Transactions.run` waits, after a commit, for the unit's events to be published before it resolves
   * anyway (default `DEFAULT_FLUSH_WAIT_MS`); the relay's timer retries what is still unpublished.
   */
  flushWaitMs?: number;
}

/**
 * Long enough for a healthy broker (a flush takes milliseconds), short enough that a caller waiting on the reply
 * (requests time out after 5 s by default) still gets it during a broker outage.
 */
export const DEFAULT_FLUSH_WAIT_MS = 2000;

export const OUTBOX_OPTIONS = Symbol('OUTBOX_OPTIONS');
