/** How a service's outbox relay runs (`OutboxModule.forService`). */
export interface OutboxOptions {
  /**
   * How often the relay looks for events nobody published: a failed publish, a crashed replica, a commit whose
   * caller did not flush. Events written by a caller that flushes after commit do not wait for it.
   */
  retryMs: number;
  /** Rows claimed, published and deleted in one transaction (default 200). */
  batchSize?: number;
}

export const OUTBOX_OPTIONS = Symbol('OUTBOX_OPTIONS');
