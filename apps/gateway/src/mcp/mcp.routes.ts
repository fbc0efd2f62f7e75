import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Request, Response } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AccountRateLimiter } from '../auth/account-rate-limiter.js';
import { Authenticator } from '../auth/authenticator.js';
import { principalOfRequest, requireCredentials } from '../auth/protocol-authentication.js';
import { authInfoOf } from './mcp-caller.js';
import { McpEndpoint } from './mcp.module.js';

export const MCP_PATH = '/mcp';

/** The Express request as the web-standard `Request` the MCP SDK serves; aborted when the client goes away. */
function toWebRequest(request: Request, response: Response): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const aborted = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) aborted.abort();
  });
  // Nest's JSON body parser has read the body already: it goes back in as JSON (and as `parsedBody`).
  const hasBody = !['GET', 'HEAD'].includes(request.method) && request.body !== undefined;
  return new globalThis.Request(`${request.protocol}://${request.get('host') ?? 'localhost'}${request.originalUrl}`, {
    method: request.method,
    headers,
    body: hasBody ? JSON.stringify(request.body) : undefined,
    signal: aborted.signal,
  });
}

async function sendWebResponse(source: globalThis.Response, response: Response): Promise<void> {
  response.status(source.status);
  source.headers.forEach((value, name) => response.setHeader(name, value));
  if (!source.body) {
    response.end();
    return;
  }
  response.flushHeaders();
  const body = Readable.fromWeb(source.body as NodeReadableStream<Uint8Array>);
  response.on('close', () => body.destroy());
  body.pipe(response);
  await new Promise<void>((resolve) => body.on('close', resolve));
}

/**
 * Mounts the MCP endpoint (Streamable HTTP) on the gateway's Express instance. The SDK's handler is web-standard
 * (`Request` → `Response`); this adapts Express to it, as `@modelcontextprotocol/node` would, in a few lines.
 * It needs the same credentials as REST; the SDK gets the authenticated caller as `authInfo`.
 */
export function mountMcpEndpoint(app: NestExpressApplication): void {
  const { handler } = app.get(McpEndpoint);
  app.use(
    MCP_PATH,
    requireCredentials(app.get(Authenticator), app.get(AccountRateLimiter)),
    (request: Request, response: Response) => {
      const parsedBody: unknown = request.is('application/json') ? request.body : undefined;
      const authInfo = authInfoOf(principalOfRequest(request));
      handler
        .fetch(toWebRequest(request, response), parsedBody === undefined ? { authInfo } : { parsedBody, authInfo })
        .then((answer) => sendWebResponse(answer, response))
        .catch((error: unknown) => {
          if (response.headersSent) {
            response.destroy(error as Error);
            return;
          }
          response.status(500).json({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32603, message: `MCP endpoint failed: ${(error as Error)?.message ?? String(error)}` },
          });
        });
    },
  );
}
