import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat completion request as the fake received it. */
export interface RecordedCompletionRequest {
  model: string;
  messages: Array<{ role: string; content: string | null }>;
  response_format?: {
    type: string;
    json_schema?: { name: string; schema?: Record<string, unknown>; strict?: boolean };
  };
  [key: string]: unknown;
}

/** What the fake answers to one request. */
export type ScriptedCompletion =
  /** The assistant's raw content (may be malformed JSON on purpose). */
  | { content: string; usage?: { promptTokens: number; completionTokens: number } }
  /** The assistant's content as JSON. */
  | { json: unknown; usage?: { promptTokens: number; completionTokens: number } }
  /** An HTTP error in OpenAI's error shape. */
  | { status: number; error: string };

export type CompletionResponder = (request: RecordedCompletionRequest) => ScriptedCompletion;

export interface OpenAiFake {
  /** `http://127.0.0.1:<port>/v1`: the `baseURL` (or `OPENAI_BASE_URL`) to give the `openai` client. */
  baseUrl: string;
  /** Requests received so far, in order. */
  requests: RecordedCompletionRequest[];
  /** Queues answers, used first-in first-out before the fallback responder. */
  enqueue(...answers: ScriptedCompletion[]): void;
  /** Answers requests once the queue is empty (default: HTTP 500 "no scripted answer"). */
  respondWith(responder: CompletionResponder): void;
  stop(): Promise<void>;
}

const DEFAULT_USAGE = { promptTokens: 50, completionTokens: 10 };

/**
 * A local OpenAI-compatible endpoint speaking the real wire protocol (`POST /v1/chat/completions`, the response
 * shape with `choices` and `usage`, errors as `{error: {message, type}}`), answering from a script. Tests run the
 * real `openai` client against it, including malformed answers, without any network.
 */
export async function startOpenAiFake(): Promise<OpenAiFake> {
  const queue: ScriptedCompletion[] = [];
  const requests: RecordedCompletionRequest[] = [];
  let fallback: CompletionResponder = () => ({ status: 500, error: 'no scripted answer' });
  let sequence = 0;

  const server: Server = createServer((request, response) => {
    void (async () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url?.split('?')[0] !== '/v1/chat/completions') {
        reply(404, {
          error: { message: `Unknown route ${request.method} ${request.url}`, type: 'invalid_request_error' },
        });
        return;
      }
      let body: RecordedCompletionRequest;
      try {
        body = JSON.parse(await readBody(request)) as RecordedCompletionRequest;
      } catch {
        reply(400, { error: { message: 'Body is not JSON', type: 'invalid_request_error' } });
        return;
      }
      requests.push(body);
      const answer = queue.shift() ?? fallback(body);
      if ('status' in answer) {
        reply(answer.status, { error: { message: answer.error, type: 'server_error', code: null, param: null } });
        return;
      }
      const content = 'json' in answer ? JSON.stringify(answer.json) : answer.content;
      const usage = answer.usage ?? DEFAULT_USAGE;
      sequence += 1;
      reply(200, {
        id: `chatcmpl-fake-${sequence}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
        ],
        usage: {
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          total_tokens: usage.promptTokens + usage.completionTokens,
        },
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...answers) => queue.push(...answers),
    respondWith: (responder) => {
      fallback = responder;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
