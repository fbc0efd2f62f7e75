/** Query strings carry text: `true`/`false` become booleans, anything else stays text and fails validation. */
export function toBoolean({ value }: { value: unknown }): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/**
 * A list parameter given either repeated (`?status=a&status=b`, which Express parses to an array) or comma-separated
 * (`?status=a,b`); empty entries are dropped. Anything else is left for validation to refuse.
 */
export function toList({ value }: { value: unknown }): unknown {
  const entries = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(entries) || !entries.every((entry) => typeof entry === 'string')) return value;
  return entries
    .flatMap((entry: string) => entry.split(','))
    .map((entry) => entry.trim())
    .filter(Boolean);
}
