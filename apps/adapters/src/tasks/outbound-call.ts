import pRetry, { AbortError } from 'p-retry';

/**
 * A failed call to an agent's endpoint, with the reason the task reports. `retryable` says whether sending the
 * same call again could help (connection refused, timeout, 5xx), as opposed to an answer that will not change
 * (4xx, a malformed reply).
 */
export class EndpointCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EndpointCallError';
  }
}

export interface RetryOptions {
  /** Total attempts, the first included. */
  attempts: number;
  signal?: AbortSignal;
  /** First backoff; each next one doubles. */
  minDelayMs?: number;
}

/**
 * Runs an idempotent outbound call with exponential backoff (p-retry). Only retryable failures are repeated; the
 * final error says what was called, how often, and why it failed, because that sentence ends up on the task.
 */
export async function withRetries<T>(what: string, options: RetryOptions, work: () => Promise<T>): Promise<T> {
  let attemptsMade = 0;
  try {
    return await pRetry(
      async () => {
        attemptsMade += 1;
        try {
          return await work();
        } catch (error) {
          if (isRetryable(error)) throw error;
          throw new AbortError(isErrorLike(error) ? error : new Error(String(error)));
        }
      },
      {
        retries: Math.max(0, options.attempts - 1),
        minTimeout: options.minDelayMs ?? 200,
        factor: 2,
        randomize: true,
        signal: options.signal,
      },
    );
  } catch (error) {
    const reason = describeError(error);
    const tries = attemptsMade > 1 ? ` after ${attemptsMade} attempts` : '';
    throw new EndpointCallError(`${what} failed${tries}: ${reason}`, isRetryable(error));
  }
}

/** Network failures, timeouts and 5xx are worth another try; anything else is the endpoint's final answer. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof EndpointCallError) return error.retryable;
  if (!isErrorLike(error)) return false;
  if (error.name === 'AbortError' && !(error instanceof AbortError)) return false; // our own cancel or deadline
  if (error.name === 'TimeoutError') return true;
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') return status >= 500 || status === 429 || status === 408;
  const text = `${error.message} ${describeCause(error)}`;
  return /fetch failed|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT|socket hang up|network|timed? ?out/i.test(
    text,
  );
}

/** One line: the error's message plus its cause (Node's fetch hides ECONNREFUSED in `cause`). */
export function describeError(error: unknown): string {
  if (!isErrorLike(error)) return String(error);
  const cause = describeCause(error);
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}

// Duck-typed, not `instanceof Error`: fetch's errors come from Node's own realm, which differs from the caller's
// under a VM (jest) and in some bundlers.
function isErrorLike(error: unknown): error is Error {
  return typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string';
}

function describeCause(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  if (isErrorLike(cause)) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
  }
  return '';
}

/** `fetch` with a timeout that also honours the task's own abort signal. */
export async function fetchWithTimeout(
  url: string,
  init: RequestInit & { timeoutMs: number; signal?: AbortSignal },
): Promise<Response> {
  const { timeoutMs, signal, ...rest } = init;
  const timeout = AbortSignal.timeout(timeoutMs);
  return fetch(url, { ...rest, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
}

/** Throws a retryable error for 5xx and a final one for other non-2xx answers, with the body's first words. */
export async function ensureOk(response: Response, what: string): Promise<Response> {
  if (response.ok) return response;
  const body = (await response.text().catch(() => '')).slice(0, 300);
  const error = new EndpointCallError(
    `${what} answered HTTP ${response.status}${body ? `: ${body}` : ''}`,
    response.status >= 500 || response.status === 429 || response.status === 408,
  );
  throw error;
}
