import { randomBytes } from 'node:crypto';

/** A new W3C `traceparent` (version 00, sampled) for requests that do not continue an existing trace. */
export function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

const TRACEPARENT_PATTERN = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Continues a trace: same trace id, new span id. Falls back to a fresh trace when the parent is malformed. */
export function childTraceparent(parent: string | undefined): string {
  if (!parent || !TRACEPARENT_PATTERN.test(parent)) return newTraceparent();
  const [version, traceId, , flags] = parent.split('-');
  return `${version}-${traceId}-${randomBytes(8).toString('hex')}-${flags}`;
}
