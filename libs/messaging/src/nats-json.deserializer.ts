import type { ConsumerDeserializer, IncomingEvent, IncomingRequest } from '@nestjs/microservices';
import type { Msg } from '@nats-io/transport-node';
import { decodeJson } from './wire.js';

/**
 * Reads plain JSON bodies off NATS. The public protocol has no `{pattern, data, id}` envelope: the subject is the
 * pattern, the body is the payload, and a reply subject makes the message a request.
 */
export class NatsJsonDeserializer implements ConsumerDeserializer {
  deserialize(message: Msg, options?: { channel?: string; replyTo?: string }): IncomingRequest | IncomingEvent {
    const pattern = options?.channel ?? message.subject;
    const data = decodeJson(message.data);
    const replyTo = options?.replyTo ?? message.reply;
    // Nest treats a packet without an id as an event, which is exactly a message without a reply subject.
    return replyTo ? { pattern, data, id: replyTo } : { pattern, data };
  }
}
