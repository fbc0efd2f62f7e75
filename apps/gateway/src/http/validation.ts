import { ValidationPipe } from '@nestjs/common';
import { ContractError } from '@ioa/contracts';
import { flattenViolations } from '@ioa/messaging';

/**
 * The HTTP boundary's validation: the same rules as NATS (whitelist, class-validator, `VALIDATION_FAILED` with one
 * entry per violated field), so a client sees the same error shape whichever transport it uses.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    exceptionFactory: (errors) => {
      const violations = flattenViolations(errors);
      const summary = violations.map((violation) => violation.constraints.join('; ')).join('; ');
      return new ContractError('VALIDATION_FAILED', `Invalid request: ${summary}`, violations);
    },
  });
}
