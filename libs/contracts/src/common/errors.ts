/**
 * Stable error codes of the wire protocol. WIRE CONSTANTS: clients switch on these strings, so a code is never
 * renamed or reused for another meaning; add new ones instead.
 */
export const ERROR_CODES = [
  /** The body was not JSON at all. */
  'MALFORMED_PAYLOAD',
  /** The body was JSON but did not satisfy the payload schema; `details` lists each violation. */
  'VALIDATION_FAILED',
  'NOT_FOUND',
  /** The request clashes with existing state (for example an agent name owned by someone else). */
  'CONFLICT',
  /** The caller is not allowed to do this (wrong owner, not a member of the group). */
  'FORBIDDEN',
  /** A move or transition that the current state does not allow; the message says what is allowed. */
  'INVALID_STATE',
  /** No service answered in time, or none is subscribed. Retrying later may succeed. */
  'UNAVAILABLE',
  'TIMEOUT',
  'BUDGET_EXHAUSTED',
  'INTERNAL',
  /** No credentials, or credentials that are unknown, expired or revoked (HTTP 401). @since issue 10 */
  'UNAUTHENTICATED',
  /** An account's quota (agents, concurrent goals) is used up; it frees up as its agents or goals end. @since issue 10 */
  'QUOTA_EXCEEDED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Error codes whose request may succeed if simply sent again later. */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['UNAVAILABLE', 'TIMEOUT', 'INTERNAL']);

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
  retryable: boolean;
}

/**
 * The one exception type of the platform. Services throw it with a code; each transport maps it once
 * (NATS: an `{ok:false, error}` reply; HTTP: a status code in the gateway). Clients get it back from
 * failed requests, so a caller can `catch` and switch on `code`.
 */
export class ContractError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    retryable?: boolean,
  ) {
    super(message);
    this.name = 'ContractError';
    this.retryable = retryable ?? RETRYABLE_CODES.has(code);
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }

  static fromBody(body: ErrorBody): ContractError {
    return new ContractError(body.code, body.message, body.details, body.retryable);
  }

  static notFound(what: string, id: string): ContractError {
    return new ContractError('NOT_FOUND', `${what} "${id}" does not exist`, { id });
  }
}

export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<ErrorBody>;
  return (
    typeof candidate.code === 'string' &&
    (ERROR_CODES as readonly string[]).includes(candidate.code) &&
    typeof candidate.message === 'string'
  );
}
