import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { forbiddenNullViolations } from '@ioa/contracts';
import { assertPayloadBounds, flattenViolations, violationError } from '@ioa/messaging';

const LEAD = 'Invalid request';

/**
 * The HTTP boundary's validation, with the same rules as NATS: `PAYLOAD_BOUNDS` checked before class-transformer
 * runs (a body nested 10,000 deep is a 400, not a stack overflow), then class-validator with whitelist, then `null`
 * only where the class allows it; every refusal is a bounded `VALIDATION_FAILED` (the first violations, then a
 * count), so a client sees the same error shape whichever transport it uses.
 */
class BoundedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query') assertPayloadBounds(value, LEAD);
    const result: unknown = await super.transform(value, metadata);
    if (metadata.type === 'body' && typeof result === 'object' && result !== null) {
      const violations = forbiddenNullViolations(result);
      if (violations.length > 0) throw violationError(violations, LEAD);
    }
    return result;
  }
}

export function createValidationPipe(): ValidationPipe {
  return new BoundedValidationPipe({
    transform: true,
    whitelist: true,
    exceptionFactory: (errors) => violationError(flattenViolations(errors), LEAD),
  });
}
