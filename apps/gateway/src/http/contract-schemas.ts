import { createRequire } from 'node:module';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { SchemaObject } from '@nestjs/swagger';

// class-transformer keeps `@Type` metadata (which class a nested array holds) in a storage it does not export
// from its entry point; the schema generator needs it to describe `skills: AgentSkillV1[]` instead of `any[]`.
const { defaultMetadataStorage } = createRequire(import.meta.url)('class-transformer/cjs/storage.js') as {
  defaultMetadataStorage: MetadataStorage;
};

const SCHEMA_PREFIX = '#/components/schemas/';

/**
 * OpenAPI component schemas of contract payload classes, generated from their class-validator decorators: the HTTP
 * documentation describes an agent card exactly as the NATS contract does, without a second copy of the class.
 * Returns the named classes plus every schema they reference.
 */
export function contractSchemas(roots: Array<new (...args: never[]) => unknown>): Record<string, SchemaObject> {
  const all = validationMetadatasToSchemas({
    classValidatorMetadataStorage: getMetadataStorage(),
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: SCHEMA_PREFIX,
    // `IsNested` adds `@IsDefined()`, which `required` already expresses.
    additionalConverters: { isDefined: {} },
  }) as Record<string, SchemaObject>;
  const selected: Record<string, SchemaObject> = {};
  const pending = roots.map((root) => root.name);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in selected) continue;
    const schema = all[name];
    if (!schema) throw new Error(`No schema could be generated for contract class ${name}`);
    selected[name] = schema;
    pending.push(...referencedSchemas(schema));
  }
  return selected;
}

function referencedSchemas(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedSchemas);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMA_PREFIX)
      ? [child.slice(SCHEMA_PREFIX.length)]
      : referencedSchemas(child),
  );
}
