import fc from 'fast-check';

/**
 * Payload generators for the hostile-input suite: bodies shaped like a payload's JSON Schema whose fields are now
 * plausible, now hostile (wrong types, NUL, lone surrogates, unsafe numbers, deep nesting, huge arrays…), and bodies
 * that are not payloads at all. Everything is generated from a fixed seed, so a failure replays exactly.
 */

export type JsonSchema = { [key: string]: unknown };

/** A fragment of JSON text that `JSON.stringify` cannot produce (`1e400`, a 20-digit integer, `__proto__` keys). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Serialises a generated value, splicing `RawJson` fragments in verbatim. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  const fragments: string[] = [];
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (!(inner instanceof RawJson)) return inner;
    fragments.push(inner.text);
    return `__raw_${fragments.length - 1}__`;
  });
  return (text ?? 'null').replace(/"__raw_(\d+)__"/g, (_match, index: string) => fragments[Number(index)]);
}

function nestedText(depth: number, open: string, close: string, leaf = '1'): RawJson {
  return new RawJson(`${open.repeat(depth)}${leaf}${close.repeat(depth)}`);
}

/** Values no field of any contract should accept as they are, or that probe the edges of the ones that do. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>(
      'nul\u0000inside',
      'lone \uD800 high surrogate',
      'lone \uDFFF low surrogate',
      '   ',
      '',
      '\u202e\u200b\ufeff',
      'x'.repeat(120_000),
      "'; DROP TABLE agents; --",
      '../../etc/passwd',
      '2026-13-45T99:99:99Z',
      '2026-02-30T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '+275760-09-13T00:00:00.000Z',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      'not-a-uuid',
      1e308,
      -1e308,
      2 ** 31,
      2 ** 53 + 2,
      -1,
      0,
      1.5,
      true,
      false,
      null,
      [],
      {},
      new Array(10_000).fill(1),
      new Array(1_200).fill('a'),
      new RawJson('1e400'),
      new RawJson('12345678901234567890'),
      new RawJson('-12345678901234567890'),
      new RawJson('{"__proto__": {"polluted": true}}'),
      new RawJson('{"constructor": {"prototype": {"polluted": true}}}'),
      nestedText(5_000, '[', ']'),
      nestedText(10_000, '{"a":', '}'),
      nestedText(40, '{"a":', '}'),
    ),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.uuid(),
    fc.integer(),
    fc.double(),
  );
}

/** Bodies that are not a payload at all: not an object, not JSON, or far beyond the bounds. */
export function hostileBody(): fc.Arbitrary<unknown> {
  return fc.oneof(
    hostileValue(),
    fc.constantFrom<unknown>(
      new RawJson('{"unterminated": '),
      new RawJson('{"a": nope}'),
      new RawJson('   '),
      new RawJson(''),
      nestedText(10_000, '[', ']', ''),
      { brief: new Array(10_000).fill(1) },
      Object.fromEntries(Array.from({ length: 1_500 }, (_, index) => [`k${index}`, index])),
    ),
  );
}

function resolveRef(schema: JsonSchema, definitions: Record<string, JsonSchema>): JsonSchema | undefined {
  const reference = schema.$ref;
  if (typeof reference !== 'string') return schema;
  return definitions[reference.slice(reference.lastIndexOf('/') + 1)];
}

function stringFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const maxLength = Math.min(Number(schema.maxLength ?? 40), 40);
  const minLength = Math.min(Number(schema.minLength ?? 1), maxLength);
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'uri':
      return fc.webUrl();
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    try {
      // Bounded by the schema's own maxLength, not the 40 kept for plain text: a pattern that only matches longer
      // strings (an nkey is 56 characters) would otherwise make the filter reject every sample, forever.
      const patternMaxLength = Number(schema.maxLength ?? Number.POSITIVE_INFINITY);
      return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= patternMaxLength);
    } catch {
      // a pattern fast-check cannot generate from: plain text will do
    }
  }
  return fc.string({ minLength, maxLength });
}

/** A plausible value for `schema`: right type, within its stated bounds (kept small). */
function plausibleValue(
  schema: JsonSchema,
  definitions: Record<string, JsonSchema>,
  depth: number,
): fc.Arbitrary<unknown> {
  const resolved = resolveRef(schema, definitions);
  if (!resolved || depth > 4) return fc.constant({});
  if (resolved !== schema) return shapedValue(resolved, definitions, depth + 1);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(schema[key])) {
      return fc.oneof(...(schema[key] as JsonSchema[]).map((inner) => plausibleValue(inner, definitions, depth)));
    }
  }
  switch (schema.type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({
        min: Math.max(Number(schema.minimum ?? -(2 ** 31)), -(2 ** 31)),
        max: Math.min(Number(schema.maximum ?? 2 ** 31 - 1), 2 ** 31 - 1),
      });
    case 'number':
      return fc.double({
        min: Math.max(Number(schema.minimum ?? -1e6), -1e6),
        max: Math.min(Number(schema.maximum ?? 1e6), 1e6),
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = (schema.items ?? {}) as JsonSchema;
      const minLength = Number(schema.minItems ?? 0);
      return fc.array(plausibleValue(items, definitions, depth + 1), {
        minLength,
        maxLength: Math.max(minLength, Math.min(Number(schema.maxItems ?? 3), 3)),
      });
    }
    case 'object':
      if (schema.properties) return shapedValue(schema, definitions, depth + 1);
      return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An object with the schema's properties, each now plausible (mostly), now hostile; optional ones sometimes left out. */
export function shapedValue(
  schema: JsonSchema,
  definitions: Record<string, JsonSchema>,
  depth = 0,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const fields = Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [
      key,
      fc.oneof(
        { weight: 5, arbitrary: plausibleValue(property, definitions, depth) },
        { weight: 1, arbitrary: hostileValue() },
      ),
    ]),
  );
  return fc.record(fields, { requiredKeys: required.filter((key) => key in fields) });
}

/** What one contract subject is sent: mostly schema-shaped payloads with hostile fields, sometimes no payload at all. */
export function payloadFor(schema: JsonSchema, definitions: Record<string, JsonSchema>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: shapedValue(schema, definitions) }, { weight: 1, arbitrary: hostileBody() });
}

/** Path segments and query values: plausible ids and numbers, and strings meant to break them. */
export function hostileParameter(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.uuid(),
    fc.constantFrom(
      '12345678901234567890',
      '1e308',
      '-1',
      '0',
      'true',
      'null',
      '%00',
      'nul\u0000',
      '\uD800',
      '   ',
      'x'.repeat(5_000),
      '../../etc',
      '{"a":1}',
    ),
    fc.string({ maxLength: 20 }),
    fc.integer().map(String),
  );
}

/** Header values a peer may attach to any request (NATS forbids only CR and LF in them). */
export function hostileHeaders(): fc.Arbitrary<Record<string, string>> {
  const value = fc
    .oneof(
      hostileParameter(),
      fc.constantFrom('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', '00-zz-zz-zz', 'k'.repeat(300)),
    )
    .map((text) => text.replace(/[\r\n]/g, ' '));
  return fc.record({ 'Idempotency-Key': value, traceparent: value }, { requiredKeys: [] });
}
