import { ContractError, PAYLOAD_BOUNDS } from '@ioa/contracts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A body refused before validation ran (unreadable, too large, or naming another actor than its subject): it travels
 * to the handler's validation in place of the payload, and the validation pipe turns it into its error reply.
 */
export class RefusedPayload {
  constructor(private readonly error: ContractError) {}

  toError(): ContractError {
    return this.error;
  }
}

/**
 * A request or event body that could not be read: not JSON (MALFORMED_PAYLOAD), or larger than
 * `PAYLOAD_BOUNDS.maxBytes` (VALIDATION_FAILED, and never parsed).
 */
export class MalformedPayload extends RefusedPayload {
  constructor(
    readonly reason: string,
    readonly code: 'MALFORMED_PAYLOAD' | 'VALIDATION_FAILED' = 'MALFORMED_PAYLOAD',
  ) {
    super(
      code === 'MALFORMED_PAYLOAD'
        ? new ContractError('MALFORMED_PAYLOAD', `The message body is not valid JSON: ${reason}`)
        : new ContractError('VALIDATION_FAILED', reason),
    );
  }
}

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value ?? null));
}

/** An empty body means "no fields" (`{}`), so subjects without parameters can be called with nothing. */
export function decodeJson(data: Uint8Array | undefined): unknown {
  if (!data || data.length === 0) return {};
  if (data.length > PAYLOAD_BOUNDS.maxBytes) {
    return new MalformedPayload(
      `The message body is ${data.length} bytes; at most ${PAYLOAD_BOUNDS.maxBytes} are accepted`,
      'VALIDATION_FAILED',
    );
  }
  const text = decoder.decode(data);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // The parser's message quotes the input; keep it short so the reply never echoes a large body.
    const reason = error instanceof Error ? error.message : String(error);
    return new MalformedPayload(reason.length > 200 ? `${reason.slice(0, 199)}…` : reason);
  }
}

/** Converts whatever a handler threw into the contract's error; unknown errors become INTERNAL. */
export function toContractError(error: unknown): ContractError {
  if (error instanceof ContractError) return error;
  if (error instanceof Error) return new ContractError('INTERNAL', error.message);
  return new ContractError('INTERNAL', 'Unexpected error');
}
