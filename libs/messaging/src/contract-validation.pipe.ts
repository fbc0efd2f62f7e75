import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { NatsContext } from '@nestjs/microservices';
import {
  ContractError,
  forbiddenNullViolations,
  payloadBoundViolations,
  summarizeViolations,
  type Violation,
} from '@ioa/contracts';
import { RefusedPayload } from './wire.js';

export type { Violation } from '@ioa/contracts';

/** Flattens nested class-validator errors into `{property: "skills.0.name", constraints: [...]}`. */
export function flattenViolations(errors: ValidationError[], prefix = ''): Violation[] {
  return errors.flatMap((error) => {
    const property = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ property, constraints: Object.values(error.constraints) }] : [];
    return [...own, ...flattenViolations(error.children ?? [], property)];
  });
}

/** VALIDATION_FAILED with a bounded list: the first violations, then how many more (never the values). */
export function violationError(violations: Violation[], lead = 'Invalid payload'): ContractError {
  const { message, details } = summarizeViolations(violations, lead);
  return new ContractError('VALIDATION_FAILED', message, details);
}

/**
 * Refuses a parsed body that exceeds `PAYLOAD_BOUNDS` (depth, sizes, unsafe strings and numbers). It runs before
 * class-transformer, whose recursion would overflow the stack on a deeply nested body.
 */
export function assertPayloadBounds(value: unknown, lead = 'Invalid payload'): void {
  const violations = payloadBoundViolations(value);
  if (violations.length > 0) throw violationError(violations, lead);
}

/**
 * Validates a payload against its contract class and returns the class instance (with defaults applied): the
 * bounds first, then class-validator, then `null` only where the class allows it. Unknown fields are stripped, not
 * rejected, so newer producers don't break older consumers. Every refusal is a bounded `ContractError`.
 */
export async function validatePayload<T extends object>(type: new () => T, value: unknown): Promise<T> {
  if (value instanceof RefusedPayload) throw value.toError();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ContractError('VALIDATION_FAILED', 'The message body must be a JSON object');
  }
  assertPayloadBounds(value);
  const instance = plainToInstance(type, value, { exposeDefaultValues: true });
  const errors = await validate(instance, { whitelist: true, forbidUnknownValues: false });
  const violations = [...flattenViolations(errors), ...forbiddenNullViolations(instance)];
  if (violations.length > 0) throw violationError(violations);
  return instance;
}

/** RPC counterpart of Nest's ValidationPipe: failures become VALIDATION_FAILED replies, never crashes. */
@Injectable()
export class ContractValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const type = metadata.metatype;
    // Only the payload is validated; the NATS context parameter passes through untouched.
    if (type === NatsContext || value instanceof NatsContext) return value;
    if (!type || [Object, String, Number, Boolean, Array].includes(type as never)) {
      if (value instanceof RefusedPayload) return validatePayload(Object as never, value);
      return value;
    }
    return validatePayload(type as new () => object, value);
  }
}
