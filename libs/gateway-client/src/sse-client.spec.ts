import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamError, followEventStream, ServerSentEventParser, type ServerSentEvent } from './sse-client.js';

describe('ServerSentEventParser', () => {
  it('dispatches events on blank lines, with id, type and multi-line data', () => {
    const parser = new ServerSentEventParser();
    const events = parser.push('id: 1\nevent: status\ndata: {"a":1}\n\n: keep-alive\n\ndata: line one\ndata: two\n\n');
    expect(events).toEqual([
      { id: '1', event: 'status', data: '{"a":1}' },
      { id: '1', event: 'message', data: 'line one\ntwo' },
    ]);
    expect(parser.comments).toBe(1);
  });

  it('reassembles events split anywhere across chunks, including a CRLF split between chunks', () => {
    const stream = '\uFEFFid: 7\r\nevent: task\r\ndata: {"seq":7}\r\n\r\nid: 8\rdata: x\r\r';
    const whole = new ServerSentEventParser().push(stream);
    for (let cut = 0; cut <= stream.length; cut += 1) {
      const parser = new ServerSentEventParser();
      const events = [...parser.push(stream.slice(0, cut)), ...parser.push(stream.slice(cut))];
      expect(events).toEqual(whole);
    }
    expect(whole).toEqual([
      { id: '7', event: 'task', data: '{"seq":7}' },
      { id: '8', event: 'message', data: 'x' },
    ]);
  });

  it('ignores events without data, unknown fields and ids containing NUL, and reads retry', () => {
    const parser = new ServerSentEventParser('3');
    const events = parser.push('event: lonely\n\nid: a\0b\nfoo: bar\nretry: 1500\nretry: soon\ndata\n\n');
    expect(events).toEqual([{ id: '3', event: 'message', data: '' }]);
    expect(parser.retryMs).toBe(1500);
  });

  it('drops an incomplete trailing event', () => {
    expect(new ServerSentEventParser().push('id: 1\ndata: half')).toEqual([]);
  });
});

describe('followEventStream', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** A local HTTP server speaking the gateway's protocol: events 1..total, resumable, 204 once all were sent. */
  async function serve(total: number, behaviour: (after: number, response: ServerResponse) => boolean) {
    const requests: Array<string | undefined> = [];
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const lastEventId = request.headers['last-event-id'] as string | undefined;
      requests.push(lastEventId);
      const after = Number(lastEventId ?? 0);
      if (after >= total) {
        response.writeHead(204).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (!behaviour(after, response)) return;
      for (let seq = after + 1; seq <= total; seq += 1) {
        response.write(`id: ${seq}\nevent: step\ndata: {"seq":${seq}}\n\n`);
      }
      response.end();
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/events`, requests };
  }

  async function collect(url: string, options: Parameters<typeof followEventStream>[1] = {}) {
    const events: ServerSentEvent[] = [];
    for await (const event of followEventStream(url, options)) events.push(event);
    return events;
  }

  it('reads until the server has nothing more to send (204)', async () => {
    const { url, requests } = await serve(3, () => true);
    const events = await collect(url);
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3']);
    expect(requests).toEqual([undefined, '3']);
  });

  it('resumes after a dropped connection with Last-Event-ID, without losing or repeating events', async () => {
    let dropped = false;
    const { url, requests } = await serve(5, (after, response) => {
      if (dropped) return true;
      dropped = true;
      // Two events, then the connection breaks mid-stream.
      response.write(`id: ${after + 1}\ndata: {}\n\nid: ${after + 2}\ndata: {}\n\ndata: {"half`, () =>
        response.socket?.destroy(),
      );
      return false;
    });
    const reconnects: Array<string | undefined> = [];
    const events = await collect(url, {
      reconnectDelayMs: 10,
      onReconnect: ({ lastEventId }) => reconnects.push(lastEventId),
    });
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(reconnects).toEqual(['2']);
    expect(requests).toEqual([undefined, '2', '5']);
  });

  it('starts after a given event id, and lets the consumer stop early', async () => {
    const { url, requests } = await serve(6, () => true);
    const seen: string[] = [];
    for await (const event of followEventStream(url, { lastEventId: '2' })) {
      seen.push(event.id ?? '');
      if (event.id === '4') break;
    }
    expect(seen).toEqual(['3', '4']);
    expect(requests).toEqual(['2']);
  });

  it('fails at once on an answer that retrying cannot change', async () => {
    server = createServer((_request, response) => response.writeHead(404).end('{"code":"NOT_FOUND"}'));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await expect(collect(`http://127.0.0.1:${port}/events`)).rejects.toBeInstanceOf(EventStreamError);
  });

  it('gives up after too many failed reconnects in a row', async () => {
    const { url } = await serve(3, (_after, response) => {
      response.socket?.destroy();
      return false;
    });
    await expect(collect(url, { maxReconnects: 2, reconnectDelayMs: 5 })).rejects.toThrow(/failed 3 times in a row/);
  });
});
