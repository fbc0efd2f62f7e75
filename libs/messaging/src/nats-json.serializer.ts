import { Logger } from '@nestjs/common';
import type { ConsumerSerializer, OutgoingResponse } from '@nestjs/microservices';
import { ContractError, errorReply, isErrorBody, okReply, type ReplyEnvelope } from '@ioa/contracts';
import { DEFAULT_MAX_PAYLOAD_BYTES, encodeReply } from './reply-encoding.js';

/** Nest's marker for a subject with no handler (should not happen: we only subscribe to handled subjects). */
const NO_HANDLER = 'There is no matching message handler defined in the remote service.';

/**
 * Writes replies as the contract's `{ok, data}` / `{ok, error}` JSON, without Nest's internal packet fields, and
 * never larger than the broker's `max_payload` (a reply NATS refuses would leave the caller waiting for its timeout).
 */
export class NatsJsonSerializer implements ConsumerSerializer {
  private readonly logger = new Logger(NatsJsonSerializer.name);
  private maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;

  /** The broker's `max_payload`, once a connection has read it from the server's INFO. */
  limitTo(maxPayloadBytes: number | undefined): void {
    if (maxPayloadBytes && maxPayloadBytes > 0) this.maxPayloadBytes = maxPayloadBytes;
  }

  serialize(packet: OutgoingResponse): { data: Uint8Array; headers?: undefined } {
    const encoded = encodeReply(this.toEnvelope(packet), this.maxPayloadBytes);
    if (encoded.replaced) this.logger.warn(encoded.replaced);
    return { data: encoded.data };
  }

  private toEnvelope(packet: OutgoingResponse): ReplyEnvelope<unknown> {
    if (packet.err === undefined || packet.err === null) return okReply(packet.response ?? null);
    if (isErrorBody(packet.err)) return errorReply(packet.err);
    if (packet.err === NO_HANDLER) return errorReply(new ContractError('UNAVAILABLE', NO_HANDLER).toBody());
    return errorReply(new ContractError('INTERNAL', 'Unexpected error').toBody());
  }
}
