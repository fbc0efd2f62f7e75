import type { NatsContext } from '@nestjs/microservices';
import type { MsgHdrs } from '@nats-io/transport-node';
import { HEADER_IDEMPOTENCY_KEY } from '@ioa/contracts';

/** A header of the incoming NATS request, or undefined when absent or empty. */
export function requestHeader(context: NatsContext, name: string): string | undefined {
  const headers = context.getHeaders() as MsgHdrs | undefined;
  const value = headers?.get(name);
  return value ? value : undefined;
}

/** The sender's `Idempotency-Key`, if it sent one. */
export function idempotencyKeyOf(context: NatsContext): string | undefined {
  return requestHeader(context, HEADER_IDEMPOTENCY_KEY);
}
