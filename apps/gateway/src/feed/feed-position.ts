import { ContractError } from '@ioa/contracts';

/**
 * Where a reader of the network feed is: the sequence of the last message it has been given (or skipped) in each
 * JetStream stream the feed reads. The SSE `id` of every feed event is this position, `<registry>.<scheduler>`, so
 * an EventSource that reconnects with `Last-Event-ID` resumes each stream right after what it had: nothing lost,
 * nothing repeated, whichever stream moved meanwhile.
 */
export interface FeedPosition {
  registrySeq: number;
  schedulerSeq: number;
}

export function formatFeedPosition(position: FeedPosition): string {
  return `${position.registrySeq}.${position.schedulerSeq}`;
}

/** The position a `Last-Event-ID` (or `?after=`) names; anything that is not an id this feed sent is a 400. */
export function parseFeedPosition(text: string): FeedPosition {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(text.trim());
  if (!match) {
    const constraint = 'Last-Event-ID / after must be the id of an event of this feed (<number>.<number>)';
    throw new ContractError('VALIDATION_FAILED', `Invalid request: ${constraint}`, [
      { property: 'Last-Event-ID', constraints: [constraint] },
    ]);
  }
  return { registrySeq: Number(match[1]), schedulerSeq: Number(match[2]) };
}
