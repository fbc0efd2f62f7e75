import {
  ContractError,
  errorReply,
  MAX_REPORTED_TEXT_LENGTH,
  type ErrorBody,
  type ReplyEnvelope,
} from '@ioa/contracts';
import { encodeJson, toContractError } from './wire.js';

/** NATS's default `max_payload`; the real limit is read from the connection's INFO when it is known. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1_048_576;

/**
 * The error body a caller is sent for whatever a handler threw: a `ContractError` as it is, anything else (a bug)
 * as INTERNAL with its message masked. `internal` tells the receive path to log the original with its stack.
 * Both receive paths (the Nest transport's filter and `ContractResponder`) use this one mapping.
 */
export function replyErrorOf(exception: unknown): { body: ErrorBody; internal: boolean } {
  const error = toContractError(exception);
  if (error.code !== 'INTERNAL') return { body: error.toBody(), internal: false };
  return { body: { code: 'INTERNAL', message: 'Internal error', retryable: error.retryable }, internal: true };
}

export interface EncodedReply {
  data: Uint8Array;
  /** Set when the reply had to be replaced to fit under `max_payload`; the receive path logs it. */
  replaced?: string;
}

function encodeOrUndefined(envelope: ReplyEnvelope<unknown>): Uint8Array | undefined {
  try {
    return encodeJson(envelope);
  } catch {
    return undefined; // a BigInt or a cycle in a handler's result: a bug, answered as INTERNAL below
  }
}

/**
 * Encodes a reply so that it always fits in one NATS message of at most `maxBytes`. An error too large loses its
 * details and most of its message; a result too large (or not serialisable) becomes INTERNAL. Never throws.
 */
export function encodeReply(envelope: ReplyEnvelope<unknown>, maxBytes: number): EncodedReply {
  const data = encodeOrUndefined(envelope);
  if (data && data.length <= maxBytes) return { data };
  const what = data ? `${data.length} bytes, over the limit of ${maxBytes}` : 'not serialisable as JSON';
  const fallback: ErrorBody = envelope.ok
    ? new ContractError('INTERNAL', 'The reply could not be sent: it was too large').toBody()
    : {
        code: envelope.error.code,
        message: String(envelope.error.message).slice(0, MAX_REPORTED_TEXT_LENGTH),
        retryable: envelope.error.retryable,
      };
  return { data: encodeJson(errorReply(fallback)), replaced: `The reply was ${what}; sent a short error instead` };
}
