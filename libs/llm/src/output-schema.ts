import { createRequire } from 'node:module';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';

// class-transformer keeps `@Type` metadata (which class a nested array holds) in a storage it does not export from
// its entry point; the generator needs it to describe `tasks: TaskDraftV1[]` instead of `any[]`.
const { defaultMetadataStorage } = createRequire(import.meta.url)('class-transformer/cjs/storage.js') as {
  defaultMetadataStorage: MetadataStorage;
};

const PREFIX = '#/$defs/';
type Schema = Record<string, unknown>;

const cache = new Map<string, Schema>();

/**
 * The JSON Schema of an output class, generated from its class-validator decorators (the same rules the answer is
 * validated against), with every referenced class under `$defs`. Generated lazily, once per class.
 */
export function jsonSchemaFor(type: new () => object): Schema {
  const cached = cache.get(type.name);
  if (cached) return cached;
  const all = validationMetadatasToSchemas({
    classValidatorMetadataStorage: getMetadataStorage(),
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: PREFIX,
  }) as Record<string, Schema>;
  const root = all[type.name];
  if (!root) throw new Error(`No JSON Schema can be generated for ${type.name}`);
  const defs: Record<string, Schema> = {};
  const pending = referenced(root);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in defs || !all[name]) continue;
    defs[name] = all[name];
    pending.push(...referenced(all[name]));
  }
  const schema: Schema = Object.keys(defs).length > 0 ? { ...root, $defs: defs } : { ...root };
  cache.set(type.name, schema);
  return schema;
}

function referenced(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referenced);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)
      ? [child.slice(PREFIX.length)]
      : referenced(child),
  );
}
