import type { EventContract } from '@ioa/contracts';

/** An event to publish once the transaction that wrote it commits. */
export interface OutboxMessage {
  contract: EventContract<unknown>;
  payload: object;
  /** Stable id of the fact (JetStream's `Nats-Msg-Id`), so a re-publish after a failure is dropped by the stream. */
  messageId: string;
}

/** Typed constructor: the payload must be the contract's payload type. */
export function outboxMessage<T extends object>(
  contract: EventContract<T>,
  payload: T,
  messageId: string,
): OutboxMessage {
  return { contract, payload, messageId };
}
