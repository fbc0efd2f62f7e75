import type { ErrorBody } from './errors.js';

/**
 * Every reply on a request subject is one of these two JSON shapes. WIRE CONSTANT.
 * @since 1
 */
export type ReplyEnvelope<T> = { ok: true; data: T } | { ok: false; error: ErrorBody };

export function okReply<T>(data: T): ReplyEnvelope<T> {
  return { ok: true, data };
}

export function errorReply(error: ErrorBody): ReplyEnvelope<never> {
  return { ok: false, error };
}
