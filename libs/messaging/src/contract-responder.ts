import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import { errorReply, okReply, type EventContract, type RequestContract } from '@ioa/contracts';
import { NATS_CONNECTION } from './nats-connection.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, encodeReply, replyErrorOf } from './reply-encoding.js';
import { validatePayload } from './contract-validation.pipe.js';
import { decodeJson } from './wire.js';
import { bodyWithActor } from './acting-agent.js';

/** What a handler may want to know about the message besides its payload. */
export interface ReceivedMessage {
  /** The concrete subject (`ioa.agent.<id>.task.v1`). */
  subject: string;
  /** A header of the message (`Idempotency-Key`, `traceparent`…), or undefined when absent or empty. */
  header(name: string): string | undefined;
}

export interface ServeOptions {
  /** Queue group: replicas in the same group share the messages; without one every subscriber gets each. */
  queue?: string;
}

/** A subject being served; `unsubscribe` stops it (messages already received are still answered). */
export interface ServedSubject {
  readonly subject: string;
  unsubscribe(): void;
  isClosed(): boolean;
}

/** `ioa.agent.*.task.v1` matches `ioa.agent.<id>.task.v1`: a `*` stands for exactly one token. */
function subjectMatches(pattern: string, subject: string): boolean {
  const expected = pattern.split('.');
  const actual = subject.split('.');
  return (
    expected.length === actual.length && expected.every((token, index) => token === '*' || token === actual[index])
  );
}

function receivedMessage(message: Msg): ReceivedMessage {
  const headers: MsgHdrs | undefined = message.headers;
  return {
    subject: message.subject,
    header: (name) => headers?.get(name) || undefined,
  };
}

/**
 * The receive path for subjects that are not known at boot (an agent's `ioa.agent.<id>.task.v1`, subscribed when
 * the agent registers): the twin of `@HandleRequest`, with the same validation and bounds (`validatePayload`), the
 * same error envelope (`replyErrorOf`: INTERNAL masked and logged) and replies kept under the connection's
 * `max_payload`. Nothing a peer sends makes it throw: every failure becomes a reply, and a reply that cannot be sent
 * is logged.
 */
@Injectable()
export class ContractResponder {
  private readonly logger = new Logger(ContractResponder.name);

  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {}

  /** Answers `contract` requests on `subject` (the contract's subject with its `*` filled in) with `handler`. */
  serve<Request, Response>(
    contract: RequestContract<Request, Response>,
    subject: string,
    handler: (request: Request, message: ReceivedMessage) => Promise<Response> | Response,
    options: ServeOptions = {},
  ): ServedSubject {
    this.assertSubject(contract.subject, subject);
    return this.subscribe(subject, options, async (message) => {
      if (!message.reply) {
        // Like the Nest transport: a request without a reply subject is not served (nobody would hear the answer).
        this.logger.debug(`Ignoring a message without a reply subject on ${message.subject}`);
        return;
      }
      let reply;
      try {
        const body = bodyWithActor(contract, message.subject, decodeJson(message.data));
        const request = await validatePayload(contract.request as new () => object, body);
        reply = okReply(await handler(request as Request, receivedMessage(message)));
      } catch (exception) {
        const { body, internal } = replyErrorOf(exception);
        if (internal) this.logger.error(`Unhandled error on ${message.subject}`, (exception as Error)?.stack);
        reply = errorReply(body);
      }
      this.respond(message, reply);
    });
  }

  /**
   * Handles `contract` events on `subject`. An event that fails validation is logged and dropped (it can never
   * succeed); a handler that throws is logged. Core NATS events are fire and forget: nothing is redelivered.
   */
  listen<Payload>(
    contract: EventContract<Payload>,
    subject: string,
    handler: (payload: Payload, message: ReceivedMessage) => Promise<void> | void,
    options: ServeOptions = {},
  ): ServedSubject {
    this.assertSubject(contract.subject, subject);
    return this.subscribe(subject, options, async (message) => {
      let payload: object;
      try {
        payload = await validatePayload(contract.payload as new () => object, decodeJson(message.data));
      } catch (exception) {
        this.logger.warn(`Ignoring an invalid event on ${message.subject}: ${replyErrorOf(exception).body.message}`);
        return;
      }
      try {
        await handler(payload as Payload, receivedMessage(message));
      } catch (exception) {
        this.logger.error(`Handler for ${message.subject} failed`, (exception as Error)?.stack);
      }
    });
  }

  private assertSubject(pattern: string, subject: string): void {
    if (!subjectMatches(pattern, subject)) throw new Error(`${subject} is not a subject of ${pattern}`);
  }

  private subscribe(subject: string, options: ServeOptions, handle: (message: Msg) => Promise<void>): ServedSubject {
    const subscription: Subscription = this.connection.subscribe(subject, {
      queue: options.queue,
      callback: (error, message) => {
        if (error) {
          this.logger.warn(`Subscription to ${subject} reported: ${error.message}`);
          return;
        }
        // `handle` catches its own failures; this catch is the last guard so no rejection escapes the callback.
        handle(message).catch((failure: unknown) =>
          this.logger.error(`Receiving on ${subject} failed`, (failure as Error)?.stack),
        );
      },
    });
    return {
      subject,
      unsubscribe: () => {
        if (!subscription.isClosed()) subscription.unsubscribe();
      },
      isClosed: () => subscription.isClosed(),
    };
  }

  private respond(message: Msg, reply: Parameters<typeof encodeReply>[0]): void {
    const encoded = encodeReply(reply, this.connection.info?.max_payload ?? DEFAULT_MAX_PAYLOAD_BYTES);
    if (encoded.replaced) this.logger.warn(`${encoded.replaced} (${message.subject})`);
    try {
      if (!message.respond(encoded.data)) this.logger.warn(`No reply subject to answer on ${message.subject}`);
    } catch (error) {
      this.logger.warn(`The reply on ${message.subject} could not be sent: ${(error as Error)?.message ?? error}`);
    }
  }
}
