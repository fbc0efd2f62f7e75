import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { NatsContext } from '@nestjs/microservices';
import { ContractError } from '@ioa/contracts';
import { MalformedPayload } from './wire.js';

export interface Violation {
  property: string;
  constraints: string[];
}

/** Flattens nested class-validator errors into `{property: "skills.0.name", constraints: [...]}`. */
export function flattenViolations(errors: ValidationError[], prefix = ''): Violation[] {
  return errors.flatMap((error) => {
    const property = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ property, constraints: Object.values(error.constraints) }] : [];
    return [...own, ...flattenViolations(error.children ?? [], property)];
  });
}

/**
 * Validates a payload against its contract class and returns the class instance (with defaults applied).
 * Unknown fields are stripped, not rejected, so newer producers don't break older consumers.
 */
export async function validatePayload<T extends object>(type: new () => T, value: unknown): Promise<T> {
  if (value instanceof MalformedPayload) {
    throw new ContractError('MALFORMED_PAYLOAD', `The message body is not valid JSON: ${value.reason}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ContractError('VALIDATION_FAILED', 'The message body must be a JSON object');
  }
  const instance = plainToInstance(type, value, { exposeDefaultValues: true });
  const errors = await validate(instance, { whitelist: true, forbidUnknownValues: false });
  if (errors.length > 0) {
    const violations = flattenViolations(errors);
    const summary = violations.map((violation) => violation.constraints.join('; ')).join('; ');
    throw new ContractError('VALIDATION_FAILED', `Invalid payload: ${summary}`, violations);
  }
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
      if (value instanceof MalformedPayload) return validatePayload(Object as never, value);
      return value;
    }
    return validatePayload(type as new () => object, value);
  }
}
