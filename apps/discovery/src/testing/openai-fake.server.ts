import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalHashEmbedder } from '@ioa/embeddings';

/**
 * A local stand-in for an OpenAI-compatible embeddings endpoint (`POST /v1/embeddings`), speaking the real wire
 * format: the request body of the API, responses shaped like `CreateEmbeddingResponse` (floats or base64
 * float32, as `encoding_format` asks), and errors shaped like the API's `{error: {message, type, param, code}}`.
 * Vectors are deterministic (the local hashing embedder, deliberately left un-normalised) so rankings through the
 * fake are meaningful. Only the model endpoint is faked: it is the third-party edge of the system.
 */
export interface OpenAiFake {
  /** What `OPENAI_BASE_URL` should be: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  requests: Array<{ authorization?: string; body: EmbeddingRequestBody }>;
  /** Answer every following request with this HTTP status and an API error body, until `recover()`. */
  fail(status: number, message?: string): void;
  recover(): void;
  /** Return vectors of this size whatever was asked (to provoke a dimension mismatch). */
  overrideDimension(dimension: number | undefined): void;
  stop(): Promise<void>;
}

interface EmbeddingRequestBody {
  model?: string;
  input?: string | string[];
  dimensions?: number;
  encoding_format?: 'float' | 'base64';
}

const NATIVE_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export async function startOpenAiFake(options: { apiKey?: string } = {}): Promise<OpenAiFake> {
  let failure: { status: number; message: string } | undefined;
  let forcedDimension: number | undefined;
  const requests: OpenAiFake['requests'] = [];

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      sendError(response, 500, String(error), 'server_error');
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
      sendError(response, 404, `Unknown route ${request.method} ${request.url}`, 'invalid_request_error');
      return;
    }
    const raw = await readBody(request);
    let body: EmbeddingRequestBody;
    try {
      body = JSON.parse(raw) as EmbeddingRequestBody;
    } catch {
      sendError(response, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error');
      return;
    }
    requests.push({ authorization: request.headers.authorization, body });
    if (options.apiKey && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(response, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
      return;
    }
    if (failure) {
      sendError(
        response,
        failure.status,
        failure.message,
        failure.status >= 500 ? 'server_error' : 'invalid_request_error',
      );
      return;
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    const model = body.model ?? '';
    const dimension = forcedDimension ?? body.dimensions ?? NATIVE_DIMENSIONS[model];
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((input) => typeof input !== 'string' || !input)) {
      sendError(
        response,
        400,
        "'input' must be a non-empty string or array of non-empty strings",
        'invalid_request_error',
      );
      return;
    }
    if (!dimension) {
      sendError(response, 404, `The model '${model}' does not exist`, 'invalid_request_error', 'model_not_found');
      return;
    }
    const embedder = new LocalHashEmbedder(dimension);
    const data = inputs.map((input, index) => {
      const vector = embedder.embedOne(input).map((value) => value * 2.5); // not unit length, like some models
      return {
        object: 'embedding',
        index,
        embedding:
          body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
      };
    });
    const tokens = inputs.reduce((sum, input) => sum + input.split(/\s+/).length, 0);
    // Answer out of order on purpose: clients must use `index`, not position.
    send(response, 200, {
      object: 'list',
      data: data.reverse(),
      model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    fail: (status, message = 'The server had an error while processing your request.') => {
      failure = { status, message };
    },
    recover: () => {
      failure = undefined;
    },
    overrideDimension: (dimension) => {
      forcedDimension = dimension;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
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

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
) {
  send(response, status, { error: { message, type, param: null, code } });
}
