import type { NatsContext } from '@nestjs/microservices';
import type { MsgHdrs } from '@nats-io/transport-node';
import {
  ContractError,
  HEADER_IDEMPOTENCY_KEY,
  HEADER_PRINCIPAL,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_RULE,
  PRINCIPAL_ROLES,
  type Principal,
} from '@ioa/contracts';

/** A header of the incoming NATS request, or undefined when absent or empty. */
export function requestHeader(context: NatsContext, name: string): string | undefined {
  const headers = context.getHeaders() as MsgHdrs | undefined;
  const value = headers?.get(name);
  return value ? value : undefined;
}

/**
 * The sender's `Idempotency-Key`, if it sent one. A key outside the contract's rule is VALIDATION_FAILED, like a
 * bad field: it would otherwise reach the column that stores it.
 */
export function idempotencyKeyOf(context: NatsContext): string | undefined {
  const key = requestHeader(context, HEADER_IDEMPOTENCY_KEY);
  if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ContractError('VALIDATION_FAILED', `Invalid request: ${IDEMPOTENCY_KEY_RULE}`, [
      { property: HEADER_IDEMPOTENCY_KEY, constraints: [IDEMPOTENCY_KEY_RULE] },
    ]);
  }
  return key;
}

/**
 * The account a request acts for (`Ioa-Principal`), or undefined when a platform service acts for itself. A header
 * that is present but not a valid principal is VALIDATION_FAILED: guessing would widen someone's rights.
 */
export function principalOf(context: NatsContext): Principal | undefined {
  const raw = requestHeader(context, HEADER_PRINCIPAL);
  if (raw === undefined) return undefined;
  const principal = parsePrincipal(raw);
  if (!principal) {
    throw new ContractError('VALIDATION_FAILED', `Invalid request: ${HEADER_PRINCIPAL} must be {"accountId","role"}`, [
      { property: HEADER_PRINCIPAL, constraints: ['must be JSON {"accountId": string, "role": "admin" | "member"}'] },
    ]);
  }
  return principal;
}

function parsePrincipal(raw: string): Principal | undefined {
  try {
    const value = JSON.parse(raw) as Partial<Principal>;
    const validAccount = typeof value.accountId === 'string' && /^[\w.:@-]{1,200}$/.test(value.accountId);
    const validRole = typeof value.role === 'string' && (PRINCIPAL_ROLES as readonly string[]).includes(value.role);
    return validAccount && validRole ? { accountId: value.accountId!, role: value.role! } : undefined;
  } catch {
    return undefined;
  }
}
