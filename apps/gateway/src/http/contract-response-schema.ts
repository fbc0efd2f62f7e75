import type { SchemaObject } from '@nestjs/swagger';
import { contractSchemas } from './contract-schemas.js';

const SCHEMA_PREFIX = '#/components/schemas/';

/**
 * The OpenAPI schema of a contract payload class with every referenced contract class written out in place, for
 * `@ApiOkResponse({ schema })`. Like `contractSchemas` it is generated from the contract's class-validator
 * decorators, so the HTTP documentation cannot drift from the NATS contract; unlike it, it needs no entry in the
 * document's `components` (those are listed in `openapi.ts`), so a resource module documents its responses alone.
 */
export function contractResponseSchema(
  root: new (...args: never[]) => unknown,
  overrides: { description?: string } = {},
): SchemaObject {
  const schemas = contractSchemas([root]);
  return { ...(resolve(schemas[root.name], schemas, [root.name]) as SchemaObject), ...overrides };
}

function resolve(value: unknown, schemas: Record<string, SchemaObject>, path: string[]): unknown {
  if (Array.isArray(value)) return value.map((entry) => resolve(entry, schemas, path));
  if (typeof value !== 'object' || value === null) return value;
  const reference = (value as { $ref?: unknown }).$ref;
  if (typeof reference === 'string' && reference.startsWith(SCHEMA_PREFIX)) {
    const name = reference.slice(SCHEMA_PREFIX.length);
    // Contract payloads are trees (a goal holds tasks, a task holds a brief); a cycle would need a component.
    if (path.includes(name)) throw new Error(`Contract class ${name} refers to itself; it cannot be inlined`);
    return resolve(schemas[name], schemas, [...path, name]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, resolve(child, schemas, path)]));
}
