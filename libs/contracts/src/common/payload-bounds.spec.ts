import 'reflect-metadata';
import { IsOptional, IsString } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { IsNested } from './validation.js';
import {
  forbiddenNullViolations,
  MAX_REPORTED_TEXT_LENGTH,
  MAX_REPORTED_VIOLATIONS,
  Nullable,
  nullablePropertiesOf,
  PAYLOAD_BOUNDS,
  payloadBoundViolations,
  summarizeViolations,
} from './payload-bounds.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { inner: value } : [value];
  return value;
}

class InnerProbe {
  @IsOptional()
  @IsString()
  note?: string;
}

class OuterProbe {
  @IsOptional()
  @IsString()
  title?: string;

  @IsOptional()
  @Nullable()
  @IsString()
  clearable?: string | null;

  @IsNested(() => InnerProbe)
  inner: InnerProbe;
}

describe('payload bounds', () => {
  it('accepts an ordinary payload, including paired surrogates (emoji) and nested free-form data', () => {
    expect(
      payloadBoundViolations({ goal: 'Plan a trip 🚀', tags: ['a', 'b'], metadata: { a: { b: [1, 2.5] } } }),
    ).toEqual([]);
    expect(payloadBoundViolations(nested(PAYLOAD_BOUNDS.maxDepth - 1))).toEqual([]);
  });

  it('refuses nesting 10,000 deep without recursing (no stack overflow)', () => {
    const violations = payloadBoundViolations(nested(10_000));
    expect(violations).toHaveLength(1);
    expect(violations[0].constraints[0]).toMatch(/nested deeper than 32 levels/);
  });

  it('refuses NUL and unpaired surrogates in values and in keys', () => {
    expect(payloadBoundViolations({ goal: 'a\u0000b' })[0].constraints[0]).toBe('goal contains a NUL character');
    expect(payloadBoundViolations({ goal: 'a\uD800b' })[0].constraints[0]).toMatch(/unpaired UTF-16 surrogate/);
    expect(payloadBoundViolations({ goal: '\uDC00' })[0].constraints[0]).toMatch(/unpaired UTF-16 surrogate/);
    expect(payloadBoundViolations({ metadata: { 'k\u0000': 1 } })[0].constraints[0]).toBe(
      'metadata has a key that contains a NUL character',
    );
  });

  it('refuses keys that name the prototype machinery, at any depth', () => {
    const body = JSON.parse('{"version": {"constructor": {"prototype": {}}}, "metadata": {"__proto__": {"x": 1}}}');
    expect(
      payloadBoundViolations(body)
        .map((violation) => violation.constraints[0])
        .sort(),
    ).toEqual([
      'metadata has a key that is a reserved name ("__proto__")',
      'version has a key that is a reserved name ("constructor")',
    ]);
  });

  it('refuses numbers that are not finite or outside the safe-integer range (1e308, 20-digit offsets)', () => {
    expect(payloadBoundViolations({ offset: 1e308 })).toHaveLength(1);
    expect(payloadBoundViolations(JSON.parse('{"offset": 12345678901234567890}'))).toHaveLength(1);
    expect(payloadBoundViolations({ offset: -Number.MAX_SAFE_INTEGER })).toEqual([]);
  });

  it('refuses oversized arrays, objects and strings without looking inside them', () => {
    expect(payloadBoundViolations({ brief: new Array(10_000).fill(1) })).toEqual([
      { property: 'brief', constraints: ['brief has more than 1000 items'] },
    ]);
    const wide = Object.fromEntries(Array.from({ length: 1_001 }, (_, index) => [`k${index}`, index]));
    expect(payloadBoundViolations(wide)[0].property).toBe('(body)');
    expect(payloadBoundViolations({ text: 'x'.repeat(PAYLOAD_BOUNDS.maxStringLength + 1) })).toHaveLength(1);
  });

  it('reports the first violations and a count, each cut short, never the values', () => {
    const many = Array.from({ length: 500 }, (_, index) => ({
      property: `items.${index}.${'p'.repeat(1000)}`,
      constraints: ['x'.repeat(1000)],
    }));
    const { message, details } = summarizeViolations(many);
    expect(details).toHaveLength(MAX_REPORTED_VIOLATIONS);
    expect(details.every((entry) => entry.property.length <= MAX_REPORTED_TEXT_LENGTH)).toBe(true);
    expect(message).toMatch(/and 490 more violations, 500 in all/);
    expect(message.length).toBeLessThan(MAX_REPORTED_VIOLATIONS * (MAX_REPORTED_TEXT_LENGTH + 2) + 200);
  });

  it('allows null only on properties marked @Nullable, and only checks contract classes', () => {
    const instance = plainToInstance(OuterProbe, {
      title: null,
      clearable: null,
      inner: { note: null },
    });
    expect(
      forbiddenNullViolations(instance)
        .map((violation) => violation.property)
        .sort(),
    ).toEqual(['inner.note', 'title']);
    expect(nullablePropertiesOf(OuterProbe)).toEqual(['clearable']);
    expect(forbiddenNullViolations(plainToInstance(OuterProbe, { inner: {} }))).toEqual([]);
  });
});
