import { createParser } from 'eventsource-parser';
import { adminAuthHeaders, expectEventually } from '@ioa/testing';

/** One event as an EventSource would deliver it, with `data` parsed as JSON. */
export interface ReceivedSseEvent {
  id: string | undefined;
  event: string | undefined;
  data: unknown;
}

/**
 * A Server-Sent Events client for tests, on `fetch` (what a non-browser client would use): parses the stream with
 * `eventsource-parser` (the EventSource specification's rules; each event keeps only the `id` it carried itself,
 * and its `event` stays undefined unless the server named one), and records everything so tests can wait on facts
 * (an event arrived, the server ended the stream) with a deadline.
 */
export class SseClient {
  readonly events: ReceivedSseEvent[] = [];
  comments = 0;
  /** The server ended the response (as opposed to the client aborting it). */
  endedByServer = false;
  failure: unknown;
  private done: Promise<void> = Promise.resolve();

  private constructor(
    private readonly abort: AbortController,
    readonly status: number,
    readonly headers: Headers,
    /** The body of a response that is not a stream (an error, or empty for 204). */
    readonly body: string,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController();
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...adminAuthHeaders(), ...headers },
      signal: abort.signal,
    });
    const isStream = response.status === 200 && response.headers.get('content-type')?.startsWith('text/event-stream');
    const client = new SseClient(abort, response.status, response.headers, isStream ? '' : await response.text());
    if (isStream && response.body) client.done = client.pump(response.body);
    return client;
  }

  /** The body of an error response, parsed. */
  get json(): Record<string, unknown> {
    return JSON.parse(this.body) as Record<string, unknown>;
  }

  get ids(): number[] {
    return this.events.map((event) => Number(event.id));
  }

  /** Waits until `predicate` holds for the events received so far. */
  async waitFor(
    predicate: (events: ReceivedSseEvent[]) => boolean,
    options: { timeoutMs?: number; message?: string } = {},
  ): Promise<ReceivedSseEvent[]> {
    await expectEventually(() => predicate(this.events), {
      timeoutMs: options.timeoutMs ?? 30_000,
      intervalMs: 25,
      message: `${options.message ?? 'SSE condition'} (received: ${this.summary()})`,
    });
    return this.events;
  }

  /** Waits until the server ends the stream. */
  async waitForEnd(timeoutMs = 30_000): Promise<ReceivedSseEvent[]> {
    await expectEventually(() => this.endedByServer, {
      timeoutMs,
      intervalMs: 25,
      message: `the server ends the stream (received: ${this.summary()})`,
    });
    return this.events;
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  private summary(): string {
    const received = this.events.map((event) => `${event.id}:${event.event}`).join(', ') || 'nothing';
    return this.failure === undefined
      ? received
      : `${received}; connection failed: ${this.failure instanceof Error ? this.failure.message : 'unknown error'}`;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = createParser({
      onEvent: (message) => {
        this.events.push({ id: message.id, event: message.event, data: JSON.parse(message.data) as unknown });
      },
      onComment: () => {
        this.comments += 1;
      },
    });
    try {
      for await (const text of body.pipeThrough(new TextDecoderStream())) parser.feed(text);
      this.endedByServer = true;
    } catch (error) {
      // The connection broke without the client asking: recorded, so a test waiting for events fails with it.
      if (!this.abort.signal.aborted) this.failure = error;
    }
  }
}
