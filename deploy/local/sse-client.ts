/**
 * A small Server-Sent Events client on Node's `fetch`, for clients that are not browsers (the demo; any script
 * following a goal). It parses the stream as the EventSource specification does and, like EventSource, reconnects
 * when the connection drops, sending `Last-Event-ID` so the server resumes after the last event received.
 *
 * The IoA gateway's goal streams (`GET /v1/goals/:id/events`) end once the goal has ended, and answer a reconnect
 * that has nothing left to send with `204 No Content`; that 204 is what ends `followEventStream`.
 */

/** One dispatched event. `id` is the last event id set by the stream (it carries over, as in EventSource). */
export interface ServerSentEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Incremental parser for `text/event-stream` (HTML Living Standard, "Interpreting an event stream"): lines end with
 * CRLF, LF or CR; `:` starts a comment; fields `data` (joined with LF), `event`, `id` (ignored when it contains NUL)
 * and `retry`; a blank line dispatches; an event without data is not dispatched; a trailing incomplete event is
 * dropped when the stream ends.
 */
export class ServerSentEventParser {
  /** The `retry` the server asked for, in milliseconds, once it has sent one. */
  retryMs: number | undefined;
  /** The last event id, kept across events: what a reconnect sends as `Last-Event-ID`. */
  lastEventId: string | undefined;
  comments = 0;

  private buffer = '';
  private data: string[] = [];
  private eventType = '';
  private atStart = true;
  /** The previous chunk ended with CR: a LF starting this one belongs to that line end. */
  private afterCarriageReturn = false;

  constructor(lastEventId?: string) {
    this.lastEventId = lastEventId;
  }

  /** Feeds decoded text; returns the events completed by it, in order. */
  push(text: string): ServerSentEvent[] {
    if (text.length === 0) return [];
    let chunk = text;
    if (this.afterCarriageReturn && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCarriageReturn = false;
    if (this.atStart) {
      if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
      this.atStart = false;
    }
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    let lineEnd: number;
    while ((lineEnd = this.buffer.search(/[\r\n]/)) >= 0) {
      const line = this.buffer.slice(0, lineEnd);
      let next = lineEnd + 1;
      if (this.buffer[lineEnd] === '\r') {
        if (next === this.buffer.length) this.afterCarriageReturn = true;
        else if (this.buffer[next] === '\n') next += 1;
      }
      this.buffer = this.buffer.slice(next);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.comments += 1;
      return undefined;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const data = this.data;
    const event = this.eventType || 'message';
    this.data = [];
    this.eventType = '';
    if (data.length === 0) return undefined;
    return { id: this.lastEventId, event, data: data.join('\n') };
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
