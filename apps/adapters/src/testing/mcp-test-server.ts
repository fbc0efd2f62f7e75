import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface McpTestServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Tool calls received, in order. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** `Authorization` headers received (empty strings for requests without one). */
  authorizations: string[];
  stop(): Promise<void>;
}

const CAPITALS: Record<string, string> = { france: 'Paris', italy: 'Rome', japan: 'Tokyo', peru: 'Lima' };

/**
 * A real MCP server built with `@modelcontextprotocol/server` (v2), served over Streamable HTTP on a random port:
 * `add` sums two numbers, `capital_of` names a country's capital (and answers `isError` for a country it does not
 * know), `shout` upper-cases a text.
 */
export async function startMcpTestServer(): Promise<McpTestServer> {
  const calls: McpTestServer['calls'] = [];
  const authorizations: string[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'geo-math-tools', version: '2.1.0' },
      { instructions: 'Small arithmetic and geography tools: adds numbers and names the capital of a country.' },
    );
    server.registerTool(
      'add',
      { description: 'Add two numbers and return the sum.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
      ({ a, b }) => {
        calls.push({ name: 'add', arguments: { a, b } });
        return { content: [{ type: 'text', text: String(a + b) }] };
      },
    );
    server.registerTool(
      'capital_of',
      {
        description: 'The capital city of a country.',
        inputSchema: z.object({ country: z.string() }),
      },
      ({ country }) => {
        calls.push({ name: 'capital_of', arguments: { country } });
        const known = Object.entries(CAPITALS).find(([name]) => country.toLowerCase().includes(name));
        return known
          ? { content: [{ type: 'text', text: `The capital of ${known[0]} is ${known[1]}.` }] }
          : { content: [{ type: 'text', text: `No capital known for "${country.slice(0, 80)}"` }], isError: true };
      },
    );
    server.registerTool(
      'shout',
      { description: 'Repeat a text in capital letters.', inputSchema: z.object({ text: z.string() }) },
      ({ text }) => {
        calls.push({ name: 'shout', arguments: { text } });
        return { content: [{ type: 'text', text: text.toUpperCase() }] };
      },
    );
    return server;
  });
  const server: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization ?? '');
    void (async () => {
      try {
        const reply = await handler.fetch(await toWebRequest(request));
        response.writeHead(reply.status, Object.fromEntries(reply.headers.entries()));
        if (reply.body) Readable.fromWeb(reply.body as never).pipe(response);
        else response.end();
      } catch (error) {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end((error as Error).message);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    authorizations,
    stop: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function toWebRequest(request: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [key, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(key, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(key, item);
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && chunks.length > 0;
  return new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url ?? '/'}`, {
    method: request.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
}
