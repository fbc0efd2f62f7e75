/**
 * NATS headers the platform reads and writes. WIRE CONSTANTS.
 * - `traceparent` follows W3C Trace Context, so traces cross NATS and HTTP unchanged.
 * - `Idempotency-Key` lets a sender retry a command safely: a service that already handled the key answers
 *   with the first result instead of doing the work twice.
 */
export const HEADER_TRACEPARENT = 'traceparent';
export const HEADER_IDEMPOTENCY_KEY = 'Idempotency-Key';

/** An `Idempotency-Key` is 1-200 printable ASCII characters without spaces, like the keys clients generate. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;
export const IDEMPOTENCY_KEY_RULE = 'Idempotency-Key must be 1-200 printable ASCII characters without spaces';
/** JetStream's de-duplication header: events carry a stable id so that a re-publish is dropped by the stream. */
export const HEADER_MESSAGE_ID = 'Nats-Msg-Id';
