import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { SLUG_PATTERN } from './slug.js';

/**
 * Composite validators for rules that recur across payloads. Keeping them here means a rule changes in one place
 * and the generated JSON Schemas stay consistent with the runtime checks.
 */

/** Text that is not only white space: a goal of three spaces says nothing and is refused. */
const NOT_BLANK = /\S/;

/** A string with something in it (not empty, not only white space) of at most `max` characters. */
export function IsText(max: number, options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsString(options)(target, key);
    IsNotEmpty(options)(target, key);
    MaxLength(max, options)(target, key);
    Matches(NOT_BLANK, { message: '$property must not be blank', ...options })(target, key);
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

/**
 * A nested payload (or array of payloads) that is itself validated. Required unless combined with
 * `@IsOptional()` / `@IsOmittable()`: `ValidateNested` alone lets a missing value through (a card without an
 * endpoint reached a NOT NULL column).
 */
export function IsNested(
  type: () => new (...args: never[]) => unknown,
  options?: { each?: boolean },
): PropertyDecorator {
  return (target, key) => {
    ValidateNested({ each: options?.each })(target, key);
    IsDefined()(target, key);
    Type(type)(target, key);
  };
}

export function IsSlug(options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsString(options)(target, key);
    Matches(SLUG_PATTERN, {
      message: `$property must be 1-63 characters of lowercase letters, digits, "-" or "_", starting with a letter or digit`,
      ...options,
    })(target, key);
  };
}

/** The largest value of a PostgreSQL `integer` column, the default upper bound of every contract integer. */
export const MAX_STORED_INTEGER = 2_147_483_647;

/**
 * Numbers written as decimal strings (an HTTP query string) become numbers; anything else is left as it is, so a
 * `true` stays a boolean and fails the number check instead of becoming 1.
 */
function numericStringToNumber({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string' || !/^\s*[+-]?\d{1,20}(\.\d{1,20})?\s*$/.test(value)) return value;
  return Number(value);
}

/** Converts a decimal string to a number and leaves every other value (a boolean, an object…) for validation. */
export function ToNumberIfNumeric(): PropertyDecorator {
  return Transform(numericStringToNumber);
}

/**
 * An integer in [min, max] (max defaults to `MAX_STORED_INTEGER`). Numeric strings are converted first, so the
 * same class validates a JSON body and an HTTP query string; booleans are not numbers.
 */
export function IsIntegerIn(min: number, max: number = MAX_STORED_INTEGER): PropertyDecorator {
  return (target, key) => {
    // Same order as stacked decorators (bottom first), so the generated JSON Schema keeps `type: integer`.
    Max(max)(target, key);
    Min(min)(target, key);
    IsInt()(target, key);
    Transform(numericStringToNumber)(target, key);
  };
}

/** A finite number in [min, max]; numeric strings are converted as for `IsIntegerIn`, booleans are refused. */
export function IsNumberIn(min: number, max: number): PropertyDecorator {
  return (target, key) => {
    Max(max)(target, key);
    Min(min)(target, key);
    IsNumber({ allowNaN: false, allowInfinity: false })(target, key);
    Transform(numericStringToNumber)(target, key);
  };
}
