import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';

/**
 * Composite validators for rules that recur across payloads. Keeping them here means a rule changes in one place
 * and the generated JSON Schemas stay consistent with the runtime checks.
 */

/** A non-empty string of at most `max` characters. */
export function IsText(max: number, options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsString(options)(target, key);
    IsNotEmpty(options)(target, key);
    MaxLength(max, options)(target, key);
  };
}

/** An array of non-empty strings, each at most `maxLength` long, at most `maxItems` of them. */
export function IsTextList(maxItems: number, maxLength: number): PropertyDecorator {
  return (target, key) => {
    IsArray()(target, key);
    ArrayMaxSize(maxItems)(target, key);
    IsString({ each: true })(target, key);
    IsNotEmpty({ each: true })(target, key);
    MaxLength(maxLength, { each: true })(target, key);
  };
}

/** A nested payload (or array of payloads) that is itself validated. */
export function IsNested(
  type: () => new (...args: never[]) => unknown,
  options?: { each?: boolean },
): PropertyDecorator {
  return (target, key) => {
    ValidateNested({ each: options?.each })(target, key);
    Type(type)(target, key);
  };
}

/** Ids minted by the platform are UUIDs; names are slugs so they can be used in subjects and URLs. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-_]{0,62}$/;

export function IsSlug(options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsString(options)(target, key);
    Matches(SLUG_PATTERN, {
      message: `$property must be 1-63 characters of lowercase letters, digits, "-" or "_", starting with a letter or digit`,
      ...options,
    })(target, key);
  };
}

/**
 * An integer in [min, max] (max optional). Numeric strings are converted first, so the same class validates a
 * JSON body and an HTTP query string.
 */
export function IsIntegerIn(min: number, max?: number): PropertyDecorator {
  return (target, key) => {
    // Same order as stacked decorators (bottom first), so the generated JSON Schema keeps `type: integer`.
    if (max !== undefined) Max(max)(target, key);
    Min(min)(target, key);
    IsInt()(target, key);
    Type(() => Number)(target, key);
  };
}
