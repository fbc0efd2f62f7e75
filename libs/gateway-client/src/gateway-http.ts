import { oneLine } from './goal-view.js';

/** The gateway answered a REST call with an error status; `body` is its `{statusCode, code, message…}` text. */
export class GatewayRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayRequestError';
  }

  /** The `message` of the gateway's error body, when it has one. */
  get reason(): string {
    try {
      const parsed = JSON.parse(this.body) as { message?: unknown };
      if (typeof parsed.message === 'string') return parsed.message;
      if (Array.isArray(parsed.message)) return parsed.message.join('; ');
    } catch {
      // Not JSON: the text itself says it.
    }
    return oneLine(this.body, 300);
  }
}

export function getJson<T>(apiKey: string, url: string): Promise<T> {
  return sendJson<T>('GET', url, { apiKey });
}

/** A REST call to the gateway, authenticated with the API key as every call must be. */
export async function sendJson<T>(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  { body, headers = {}, apiKey }: { body?: unknown; headers?: Record<string, string>; apiKey: string },
): Promise<T> {
  const authenticated = { ...headers, authorization: `Bearer ${apiKey}` };
  const response = await fetch(url, {
    method,
    headers: body === undefined ? authenticated : { 'content-type': 'application/json', ...authenticated },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new GatewayRequestError(
      response.status,
      text,
      `${method} ${url} answered ${response.status}: ${oneLine(text, 500)}`,
    );
  }
  return JSON.parse(text) as T;
}
