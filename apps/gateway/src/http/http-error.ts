import { HttpException, HttpStatus } from '@nestjs/common';
import { ContractError, type ErrorCode } from '@ioa/contracts';

/**
 * The gateway's one translation from the platform's error codes to HTTP. Every error response of the gateway has
 * this body, whether the error came from a service over NATS, from HTTP validation or from the router.
 */
export interface HttpErrorBody {
  statusCode: number;
  /** The platform's stable error code; clients switch on this, not on the message. */
  error: ErrorCode;
  message: string;
  details?: unknown;
}

/**
 * HTTP status of each contract error code. The switch is exhaustive on purpose (no `default`): a new error code
 * does not compile until someone decides its status here.
 */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_FAILED':
    case 'MALFORMED_PAYLOAD':
      return HttpStatus.BAD_REQUEST;
    case 'NOT_FOUND':
      return HttpStatus.NOT_FOUND;
    // 401 asks for (other) credentials; 403 says these credentials are known but may not do this.
    case 'UNAUTHENTICATED':
      return HttpStatus.UNAUTHORIZED;
    case 'FORBIDDEN':
      return HttpStatus.FORBIDDEN;
    // INVALID_STATE: the resource exists but its current state forbids the request (a move out of turn, a
    // concluded goal); 409 tells the client to re-read the state rather than fix its request.
    case 'CONFLICT':
    case 'INVALID_STATE':
      return HttpStatus.CONFLICT;
    case 'UNAVAILABLE':
    case 'TIMEOUT':
      return HttpStatus.SERVICE_UNAVAILABLE;
    // A token or time allowance is used up. 429 is how HTTP APIs report an exhausted quota (OpenAI answers
    // `insufficient_quota` with 429); unlike a rate limit it comes without Retry-After, since waiting does not help
    // until the budget is raised.
    // An account's quota of agents or concurrent goals: 429 like a budget; it frees up as agents or goals end.
    case 'BUDGET_EXHAUSTED':
    case 'QUOTA_EXCEEDED':
      return HttpStatus.TOO_MANY_REQUESTS;
    // A service behind the gateway failed: the gateway itself is fine, so 502 rather than 500 (which is reserved
    // for the gateway's own bugs).
    case 'INTERNAL':
      return HttpStatus.BAD_GATEWAY;
  }
}

/** Best-effort reverse mapping for errors raised by the HTTP layer itself (router, pipes, body parser). */
export function errorCodeOfHttpStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 404 || status === 405 || status === 410) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  // A rate limit (429) is not an exhausted budget: waiting is enough, which is what UNAVAILABLE promises.
  if (status === 429 || status === 503) return 'UNAVAILABLE';
  if (status === 504) return 'TIMEOUT';
  if (status >= 400 && status < 500) return 'VALIDATION_FAILED';
  return 'INTERNAL';
}

/** `ioa.registry.agent.list.v1` → `registry`: the owner is the second token of every subject. */
function serviceOfSubject(subject: unknown): string | undefined {
  return typeof subject === 'string' ? subject.split('.')[1] : undefined;
}

function detailsRecord(details: unknown): Record<string, unknown> {
  return typeof details === 'object' && details !== null && !Array.isArray(details)
    ? (details as Record<string, unknown>)
    : {};
}

/** What a person reading the response should be told; the code stays the machine-readable part. */
function messageOf(error: ContractError): string {
  const details = detailsRecord(error.details);
  const service = serviceOfSubject(details.subject);
  if (service === undefined) return error.message;
  switch (error.code) {
    case 'TIMEOUT':
      return `The ${service} service did not answer in time (${String(details.timeoutMs)} ms); try again shortly`;
    case 'UNAVAILABLE':
      return `The ${service} service is not available (${error.message}); try again shortly`;
    default:
      return error.message;
  }
}

export function contractErrorToHttp(error: ContractError): HttpErrorBody {
  const body: HttpErrorBody = {
    statusCode: httpStatusOf(error.code),
    error: error.code,
    message: messageOf(error),
  };
  if (error.details !== undefined) body.details = error.details;
  return body;
}

/**
 * Nest's own exceptions (unknown route, a pipe's BadRequestException, a body-parser error that Nest wrapped): keep
 * their status, add our code. A body that is not JSON is MALFORMED_PAYLOAD, exactly as on NATS.
 */
export function httpExceptionToHttp(exception: HttpException): HttpErrorBody {
  const statusCode = exception.getStatus();
  const cause = exception.cause as { type?: unknown } | undefined;
  const code = cause?.type === 'entity.parse.failed' ? 'MALFORMED_PAYLOAD' : errorCodeOfHttpStatus(statusCode);
  const response = exception.getResponse();
  let message = exception.message;
  if (typeof response === 'string') message = response;
  else if (typeof response === 'object' && response !== null && 'message' in response) {
    const raw = response.message;
    message = Array.isArray(raw) ? raw.map(String).join('; ') : String(raw);
  }
  return { statusCode, error: code, message };
}

export const INTERNAL_ERROR_BODY: HttpErrorBody = {
  statusCode: HttpStatus.INTERNAL_SERVER_ERROR,
  error: 'INTERNAL',
  message: 'Internal server error',
};
