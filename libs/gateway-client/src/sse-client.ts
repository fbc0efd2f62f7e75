/**
 * A small Server-Sent Events client on Node's `fetch`, for clients that are not browsers (the demo; any script
 * following a goal). It parses the stream as the EventSource specification does and, like EventSource, reconnects
 * when the connection drops, sending `Last-Event-ID` so the server resumes after the last event received.
 *
 * The IoA gateway's goal streams (`GET /v1/goals/:id/events`) end once the goal has ended, and answer a reconnect
 * that has nothing left to send with `204 No Content`; that 204 is what ends `followEventStream`.
 */

import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One dispatched event. `id` is the last event id set by the stream (it carries over, as in EventSource). */
export interface ServerSentEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Incremental parser for `text/event-stream`, on `eventsource-parser` (which follows the HTML Living Standard,
 * "Interpreting an event stream": CRLF, LF or CR line ends, comments, `data` joined with LF, `id` without NUL,
 * `retry`, a blank line dispatches). What this adds is EventSource's view of it: an event's type defaults to
 * `message`, the last event id carries over from event to event (and across reconnects), and a block without data
 * dispatches nothing.
 */
export class ServerSentEventParser {
  /** The `retry` the server asked for, in milliseconds, once it has sent one. */
  retryMs: number | undefined;
  /** The last event id, kept across events: what a reconnect sends as `Last-Event-ID`. */
  lastEventId: string | undefined;
  comments = 0;

  private completed: ServerSentEvent[] = [];
  private readonly parser: EventSourceParser;

  constructor(lastEventId?: string) {
    this.lastEventId = lastEventId;
    this.parser = createParser({
      onId: (id) => {
        this.lastEventId = id;
      },
      onEvent: (message) => {
        this.completed.push({ id: this.lastEventId, event: message.event || 'message', data: message.data });
      },
      onRetry: (retryMs) => {
        this.retryMs = retryMs;
      },
      onComment: () => {
        this.comments += 1;
      },
    });
  }

  /** Feeds decoded text; returns the events completed by it, in order. */
  push(text: string): ServerSentEvent[] {
    this.parser.feed(text);
    const events = this.completed;
    this.completed = [];
    return events;
  }
}

/** The server answered with something other than an event stream, and retrying will not change that. */
export class EventStreamError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    message: string,
  ) {
    super(message);
    this.name = 'EventStreamError';
  }
}

export interface EventStreamOptions {
  /** Resume after this event (sent as `Last-Event-ID` on the first request too). */
  lastEventId?: string;
  /** Aborting stops the stream: the generator throws the abort reason. */
  signal?: AbortSignal;
  /** Reconnects in a row without receiving any event before giving up (default 5). */
  maxReconnects?: number;
  /** Wait before reconnecting after a failure, unless the server sent `retry` (default 500 ms). */
  reconnectDelayMs?: number;
  /** Told about every reconnect after a failure (not about the ordinary one after the server ends a stream). */
  onReconnect?: (reconnect: { attempt: number; lastEventId: string | undefined; reason: string }) => void;
  /** Sent with every (re)connection, e.g. the credentials. */
  headers?: Record<string, string>;
}

/**
 * Follows an event stream until the server has nothing more to send (`204`), reconnecting with `Last-Event-ID`
 * whenever the connection breaks or the server ends a response. Stop early with `break` (or the signal): the
 * connection is closed either way.
 */
export async function* followEventStream(
  url: string,
  options: EventStreamOptions = {},
): AsyncGenerator<ServerSentEvent> {
  const maxReconnects = options.maxReconnects ?? 5;
  let lastEventId = options.lastEventId;
  let delayMs = options.reconnectDelayMs ?? 500;
  /** Reconnects since the last event received. */
  let attempts = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const connection = new AbortController();
    const signal = options.signal ? AbortSignal.any([connection.signal, options.signal]) : connection.signal;
    let failure: string | undefined;
    try {
      const response = await fetch(url, {
        headers: {
          ...options.headers,
          accept: 'text/event-stream',
          'cache-control': 'no-cache',
          ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
        },
        signal,
      });
      if (response.status === 204) return;
      if (response.status !== 200 || !response.body) {
        const body = await response.text();
        const message = `GET ${url} answered ${response.status}: ${body || response.statusText}`;
        // 502/503/504: a gateway or service that may come back; anything else will answer the same again.
        if (![502, 503, 504].includes(response.status)) throw new EventStreamError(response.status, body, message);
        failure = message;
      } else if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
        throw new EventStreamError(200, '', `GET ${url} did not answer with an event stream`);
      } else {
        const parser = new ServerSentEventParser(lastEventId);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const event of parser.push(value)) {
            lastEventId = parser.lastEventId;
            attempts = 0;
            yield event;
          }
          if (parser.retryMs !== undefined) delayMs = parser.retryMs;
        }
        // The server ended this response. EventSource reconnects at once; the server says 204 when it is all over.
        attempts += 1;
        if (attempts > maxReconnects) {
          throw new Error(`GET ${url}: the server ended ${attempts} responses in a row without sending an event`);
        }
        continue;
      }
    } catch (error) {
      if (options.signal?.aborted || error instanceof EventStreamError) throw error;
      failure = error instanceof Error ? `${error.message}${causeOf(error)}` : String(error);
    } finally {
      // Releases the connection, also when the consumer stopped early (`break` runs this through `return`).
      connection.abort();
    }
    attempts += 1;
    if (attempts > maxReconnects) {
      throw new Error(`GET ${url} failed ${attempts} times in a row; last: ${failure}`);
    }
    options.onReconnect?.({ attempt: attempts, lastEventId, reason: failure ?? 'unknown' });
    await sleep(delayMs * attempts, options.signal);
  }
}

/** fetch's network errors say "fetch failed" / "terminated" and keep the useful part in `cause`. */
function causeOf(error: Error): string {
  const cause = error.cause;
  if (cause instanceof Error) return ` (${cause.message})`;
  return '';
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
