import { ContractError } from '@ioa/contracts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A request or event body that could not be parsed as JSON; the validation pipe turns it into MALFORMED_PAYLOAD. */
export class MalformedPayload {
  constructor(readonly reason: string) {}
}

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value ?? null));
}

/** An empty body means "no fields" (`{}`), so subjects without parameters can be called with nothing. */
export function decodeJson(data: Uint8Array | undefined): unknown {
  if (!data || data.length === 0) return {};
  const text = decoder.decode(data);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return new MalformedPayload(error instanceof Error ? error.message : String(error));
  }
}

/** Converts whatever a handler threw into the contract's error body; unknown errors become INTERNAL. */
export function toContractError(error: unknown): ContractError {
  if (error instanceof ContractError) return error;
  if (error instanceof Error) return new ContractError('INTERNAL', error.message);
  return new ContractError('INTERNAL', 'Unexpected error');
}
