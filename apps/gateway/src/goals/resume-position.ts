import { ContractError } from '@ioa/contracts';

/** The header a reconnecting EventSource sends: the `id:` of the last event it received. */
export const LAST_EVENT_ID_HEADER = 'last-event-id';

/**
 * Where a goal's event stream starts: after the event named by `Last-Event-ID`, else after `?after=`, else from the
 * beginning. The header wins: an EventSource that reconnects sends it while its URL still carries the `after` it
 * was first opened with. Our ids are the log's `seq` numbers, so anything else is a client error.
 */
export function resumePosition(lastEventId: string | undefined, after: number | undefined): number {
  const header = lastEventId?.trim();
  if (header === undefined || header === '') return after ?? 0;
  if (!/^\d{1,15}$/.test(header)) {
    const constraint = 'Last-Event-ID must be the id of an event of this stream (a non-negative integer)';
    throw new ContractError('VALIDATION_FAILED', `Invalid request: ${constraint}`, [
      { property: 'Last-Event-ID', constraints: [constraint] },
    ]);
  }
  return Number(header);
}
