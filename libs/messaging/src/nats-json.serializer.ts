import type { ConsumerSerializer, OutgoingResponse } from '@nestjs/microservices';
import { ContractError, errorReply, isErrorBody, okReply, type ReplyEnvelope } from '@ioa/contracts';
import { encodeJson } from './wire.js';

/** Nest's marker for a subject with no handler (should not happen: we only subscribe to handled subjects). */
const NO_HANDLER = 'There is no matching message handler defined in the remote service.';

/** Writes replies as the contract's `{ok, data}` / `{ok, error}` JSON, without Nest's internal packet fields. */
export class NatsJsonSerializer implements ConsumerSerializer {
  serialize(packet: OutgoingResponse): { data: Uint8Array; headers?: undefined } {
    return { data: encodeJson(this.toEnvelope(packet)) };
  }

  private toEnvelope(packet: OutgoingResponse): ReplyEnvelope<unknown> {
    if (packet.err === undefined || packet.err === null) return okReply(packet.response ?? null);
    if (isErrorBody(packet.err)) return errorReply(packet.err);
    if (packet.err === NO_HANDLER) return errorReply(new ContractError('UNAVAILABLE', NO_HANDLER).toBody());
    return errorReply(new ContractError('INTERNAL', 'Unexpected error').toBody());
  }
}
