/**
 * Bounds every payload of the platform meets before class-transformer and class-validator look at it, on NATS and
 * on REST alike. They are checked by one iterative walk (no recursion: a body nested 10,000 deep is refused, not a
 * stack overflow), and they appear in the generated JSON Schemas (`maxLength`, `maxItems`, `maximum`…, and
 * `x-ioa-bounds` on each payload).
 *
 * WIRE CONSTANTS: lowering a bound can break senders that were valid; raise them only with the services' storage
 * in mind.
 */
export const PAYLOAD_BOUNDS = Object.freeze({
  /** Encoded size of a request or event body (the NATS default `max_payload` is the same 1 MiB). */
  maxBytes: 1_048_576,
  /** Nesting of objects and arrays; the deepest contract payload needs about 6, free-form metadata gets the rest. */
  maxDepth: 32,
  /** Items of any one array (the largest contract list allows 500). */
  maxArrayItems: 1_000,
  /** Keys of any one object. */
  maxObjectKeys: 1_000,
  /** Characters of any one string (a task result, the longest contract text, allows 100,000). */
  maxStringLength: 100_000,
  /** Characters of an object key. */
  maxKeyLength: 256,
});

/**
 * Object keys no payload may use: they name JavaScript's prototype machinery, and class-transformer treats a
 * `constructor` key as the class to build (a body with `{"constructor": {}}` made it throw).
 */
export const RESERVED_KEYS: readonly string[] = Object.freeze(['__proto__', 'constructor', 'prototype']);

/** Error replies list at most this many violations, then say how many more there were. */
export const MAX_REPORTED_VIOLATIONS = 10;
/** Property paths and messages in an error reply are cut to this many characters. */
export const MAX_REPORTED_TEXT_LENGTH = 200;

/** One reason a payload is refused: the path of the offending value (`skills.0.name`) and what is wrong with it. */
export interface Violation {
  property: string;
  constraints: string[];
}

// Lone surrogates cannot be encoded as UTF-8 (PostgreSQL refuses them) and NUL cannot be stored in a text column.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string may not travel, or undefined when it may. */
export function unsafeTextReason(text: string, maxLength: number): string | undefined {
  if (text.length > maxLength) return `is longer than ${maxLength} characters`;
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (UNPAIRED_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/** Why a number may not travel: every number of the contract is finite and within the safe-integer range. */
export function unsafeNumberReason(value: number): string | undefined {
  if (!Number.isFinite(value)) return 'is not a finite number';
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return `is outside ±${Number.MAX_SAFE_INTEGER}`;
  return undefined;
}

function childPath(path: string, key: string | number): string {
  const segment = String(key).slice(0, 64);
  return path ? `${path}.${segment}` : segment;
}

/**
 * Every way `value` (a parsed JSON body) exceeds `PAYLOAD_BOUNDS`: depth, array and object sizes, string lengths,
 * NUL and unpaired surrogates (in keys too), reserved keys, non-finite or unsafe numbers. Iterative and linear in the size of the
 * value; it stops descending below the depth bound, so the work it does is bounded by the body's size.
 */
export function payloadBoundViolations(value: unknown): Violation[] {
  const violations: Violation[] = [];
  const add = (property: string, constraint: string) =>
    violations.push({ property: property || '(body)', constraints: [`${property || 'body'} ${constraint}`] });
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value: current, path, depth } = pending.pop() as (typeof pending)[number];
    if (typeof current === 'string') {
      const reason = unsafeTextReason(current, PAYLOAD_BOUNDS.maxStringLength);
      if (reason) add(path, reason);
      continue;
    }
    if (typeof current === 'number') {
      const reason = unsafeNumberReason(current);
      if (reason) add(path, reason);
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= PAYLOAD_BOUNDS.maxDepth) {
      add(path, `is nested deeper than ${PAYLOAD_BOUNDS.maxDepth} levels`);
      continue;
    }
    if (Array.isArray(current)) {
      if (current.length > PAYLOAD_BOUNDS.maxArrayItems) {
        add(path, `has more than ${PAYLOAD_BOUNDS.maxArrayItems} items`);
        continue;
      }
      for (let index = current.length - 1; index >= 0; index--) {
        pending.push({ value: current[index], path: childPath(path, index), depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > PAYLOAD_BOUNDS.maxObjectKeys) {
      add(path, `has more than ${PAYLOAD_BOUNDS.maxObjectKeys} keys`);
      continue;
    }
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index];
      const keyReason = RESERVED_KEYS.includes(key)
        ? `is a reserved name ("${key}")`
        : unsafeTextReason(key, PAYLOAD_BOUNDS.maxKeyLength);
      if (keyReason) {
        add(path, `has a key that ${keyReason}`);
        continue;
      }
      pending.push({ value: (current as Record<string, unknown>)[key], path: childPath(path, key), depth: depth + 1 });
    }
  }
  return violations;
}

function cut(text: string): string {
  return text.length > MAX_REPORTED_TEXT_LENGTH ? `${text.slice(0, MAX_REPORTED_TEXT_LENGTH - 1)}…` : text;
}

/**
 * The bounded form of a violation list for an error reply: the first `MAX_REPORTED_VIOLATIONS`, each cut short,
 * and a message that says how many there were in all. Values are never echoed, so a reply stays small whatever
 * the request held.
 */
export function summarizeViolations(
  violations: Violation[],
  lead = 'Invalid payload',
): { message: string; details: Violation[] } {
  const shown = violations.slice(0, MAX_REPORTED_VIOLATIONS).map((violation) => ({
    property: cut(violation.property),
    constraints: violation.constraints.slice(0, 3).map(cut),
  }));
  const summary = shown.map((violation) => violation.constraints.join('; ')).join('; ');
  const more = violations.length - shown.length;
  const tail = more > 0 ? ` (and ${more} more violation${more === 1 ? '' : 's'}, ${violations.length} in all)` : '';
  return { message: `${lead}: ${summary}${tail}`, details: shown };
}

// ---------------------------------------------------------------------------------------------------------------
// null only where the contract allows it

const NULLABLE_PROPERTIES = new WeakMap<object, Set<string | symbol>>();

/**
 * Marks a property that accepts an explicit `null` (for example "clear this field" in an update). Everywhere else a
 * `null` is refused, even on optional properties, whose `@IsOptional()` would otherwise let it through to a NOT NULL
 * column. Combine with `@IsOptional()`.
 */
export function Nullable(): PropertyDecorator {
  return (target, key) => {
    const properties = NULLABLE_PROPERTIES.get(target) ?? new Set<string | symbol>();
    properties.add(key);
    NULLABLE_PROPERTIES.set(target, properties);
  };
}

function isNullable(instance: object, key: string): boolean {
  for (let prototype = Object.getPrototypeOf(instance) as object | null; prototype;) {
    if (NULLABLE_PROPERTIES.get(prototype)?.has(key)) return true;
    prototype = Object.getPrototypeOf(prototype) as object | null;
  }
  return false;
}

/** The properties of a payload class (and the classes it extends) marked `@Nullable()`, for the schema generator. */
export function nullablePropertiesOf(payload: abstract new (...args: never[]) => unknown): string[] {
  const names = new Set<string>();
  for (let prototype = payload.prototype as object | null; prototype;) {
    for (const key of NULLABLE_PROPERTIES.get(prototype) ?? []) if (typeof key === 'string') names.add(key);
    prototype = Object.getPrototypeOf(prototype) as object | null;
  }
  return [...names].sort();
}

/**
 * The `null`s of a transformed payload that its classes do not allow. Only properties of contract class instances
 * are checked; free-form objects (`metadata`, event `data`) are plain JSON and may hold `null`. Iterative, and the
 * payload has already passed `payloadBoundViolations`, so it is shallow and finite.
 */
export function forbiddenNullViolations(instance: object): Violation[] {
  const violations: Violation[] = [];
  const pending: Array<{ value: unknown; path: string }> = [{ value: instance, path: '' }];
  while (pending.length > 0) {
    const { value, path } = pending.pop() as (typeof pending)[number];
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, path: childPath(path, index) }));
      continue;
    }
    const prototype = Object.getPrototypeOf(value) as object | null;
    if (prototype === Object.prototype || prototype === null) continue; // free-form JSON
    for (const [key, child] of Object.entries(value)) {
      const property = childPath(path, key);
      if (child === null && !isNullable(value, key)) {
        violations.push({ property, constraints: [`${property} must not be null (omit it instead)`] });
      } else {
        pending.push({ value: child, path: property });
      }
    }
  }
  return violations;
}
