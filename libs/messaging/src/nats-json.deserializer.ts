import type { ConsumerDeserializer, IncomingEvent, IncomingRequest } from '@nestjs/microservices';
import type { Msg } from '@nats-io/transport-node';
import { decodeJson } from './wire.js';
import { actorContractOf, bodyWithActor } from './acting-agent.js';

/**
 * Reads plain JSON bodies off NATS. The public protocol has no `{pattern, data, id}` envelope: the subject is the
 * pattern, the body is the payload, and a reply subject makes the message a request.
 */
export class NatsJsonDeserializer implements ConsumerDeserializer {
  deserialize(message: Msg, options?: { channel?: string; replyTo?: string }): IncomingRequest | IncomingEvent {
    const pattern = options?.channel ?? message.subject;
    const body = decodeJson(message.data);
    // On `ioa.agent.*.…` action subjects the actor is the subject's agent (`pattern` is the handler's subject).
    const actorContract = actorContractOf(pattern);
    const data = actorContract ? bodyWithActor(actorContract, message.subject, body) : body;
    const replyTo = options?.replyTo ?? message.reply;
    // Nest treats a packet without an id as an event, which is exactly a message without a reply subject.
    return replyTo ? { pattern, data, id: replyTo } : { pattern, data };
  }
}
