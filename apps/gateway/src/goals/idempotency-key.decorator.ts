import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ContractError, HEADER_IDEMPOTENCY_KEY } from '@ioa/contracts';

/** Printable ASCII without spaces, like the keys clients generate (UUIDs, ULIDs, hashes). */
const KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

/**
 * The request's `Idempotency-Key` header, validated, or undefined. The gateway forwards it as the NATS request's
 * `Idempotency-Key`, so a client retrying a `POST` after a lost response can ask the service to do the work once.
 */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string | undefined => {
  const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
  const value = request.headers[HEADER_IDEMPOTENCY_KEY.toLowerCase()];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) {
    const constraint = 'Idempotency-Key must be 1-200 printable ASCII characters without spaces';
    throw new ContractError('VALIDATION_FAILED', `Invalid request: ${constraint}`, [
      { property: 'Idempotency-Key', constraints: [constraint] },
    ]);
  }
  return value;
});
