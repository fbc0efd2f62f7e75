import type { NatsContext } from '@nestjs/microservices';
import type { MsgHdrs } from '@nats-io/transport-node';
import { ContractError, HEADER_IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from '@ioa/contracts';

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
