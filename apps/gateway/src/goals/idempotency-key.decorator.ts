import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ContractError, HEADER_IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from '@ioa/contracts';

/**
 * The request's `Idempotency-Key` header, validated, or undefined. The gateway forwards it as the NATS request's
 * `Idempotency-Key`, so a client retrying a `POST` after a lost response can ask the service to do the work once.
 */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string | undefined => {
  const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
  const value = request.headers[HEADER_IDEMPOTENCY_KEY.toLowerCase()];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw new ContractError('VALIDATION_FAILED', `Invalid request: ${IDEMPOTENCY_KEY_RULE}`, [
      { property: HEADER_IDEMPOTENCY_KEY, constraints: [IDEMPOTENCY_KEY_RULE] },
    ]);
  }
  return value;
});
