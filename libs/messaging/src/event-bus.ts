import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  JetStreamApiError,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import { ALL_CONTRACTS, ContractError, type EventContract } from '@ioa/contracts';
import { NATS_CONNECTION } from './nats-connection.js';
import { decodeJson, encodeJson } from './wire.js';
import { validatePayload } from './contract-validation.pipe.js';

export interface PublishOptions {
  /**
   * Stable id of this fact (for example `<agentId>:<revision>`). JetStream drops a second publish with the same id
   * inside its duplicate window, so a retried publish never delivers an event twice.
   */
  messageId?: string;
}

export type EventHandler<T> = (payload: T, message: { subject: string; redelivered: boolean }) => Promise<void>;

export interface EventSubscription {
  /** Durable consumer name; use the service name so replicas share the work and a restart resumes where it was. */
  durable: string;
  handlers: Array<{ contract: EventContract<unknown>; handle: EventHandler<never> }>;
}

/** Retry delays of a failing handler, in ms; after the last one the message stays un-acked for redelivery. */
const NAK_DELAY_MS = 1000;
const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000;

/** Typed helper to build a handler entry without losing the payload type. */
export function on<T>(contract: EventContract<T>, handle: EventHandler<T>) {
  return { contract: contract as EventContract<unknown>, handle: handle as EventHandler<never> };
}

/**
 * Publishes and consumes contract events. Events that name a stream go through JetStream (stored, acked,
 * de-duplicated by message id, redelivered after a crash); the others are plain core NATS publishes.
 * Core NATS subscribers see stream events too, so an external agent can simply subscribe.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly logger = new Logger(EventBus.name);
  private readonly js: JetStreamClient;
  private readonly running: ConsumerMessages[] = [];
  private streamsReady?: Promise<void>;

  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {
    this.js = jetstream(connection);
  }

  /** Creates (or updates) every stream the contract declares. Idempotent; safe to call from every replica. */
  ensureStreams(): Promise<void> {
    this.streamsReady ??= this.createStreams().catch((error: unknown) => {
      this.streamsReady = undefined;
      throw error;
    });
    return this.streamsReady;
  }

  private async createStreams(): Promise<void> {
    const manager = await jetstreamManager(this.connection);
    const subjectsByStream = new Map<string, string[]>();
    for (const contract of ALL_CONTRACTS) {
      if (contract.kind !== 'event' || !contract.stream) continue;
      subjectsByStream.set(contract.stream, [...(subjectsByStream.get(contract.stream) ?? []), contract.subject]);
    }
    for (const [name, subjects] of subjectsByStream) {
      const config = { name, subjects, duplicate_window: DUPLICATE_WINDOW_NS };
      try {
        await manager.streams.info(name);
        await manager.streams.update(name, config);
      } catch (error) {
        // `status` is the HTTP-like 404; `code` is JetStream's own err_code (10059 stream / 10014 consumer not found).
        if (!(error instanceof JetStreamApiError) || error.status !== 404) throw error;
        await manager.streams.add(config);
      }
    }
  }

  async publish<T>(contract: EventContract<T>, payload: T, options: PublishOptions = {}): Promise<void> {
    const data = encodeJson(payload);
    if (!contract.stream) {
      this.connection.publish(contract.subject, data);
      return;
    }
    await this.ensureStreams();
    await this.js.publish(contract.subject, data, options.messageId ? { msgID: options.messageId } : undefined);
  }

  /**
   * Starts a durable pull consumer per stream used by the handlers. Messages are handled one at a time, in stream
   * order; a payload that fails validation is logged and terminated (it can never succeed), a handler that throws
   * is retried after a delay.
   */
  async subscribe(subscription: EventSubscription): Promise<void> {
    await this.ensureStreams();
    const manager = await jetstreamManager(this.connection);
    const byStream = new Map<string, EventSubscription['handlers']>();
    for (const handler of subscription.handlers) {
      const stream = handler.contract.stream;
      if (!stream) throw new Error(`${handler.contract.subject} is not a stream event; use a core subscription`);
      byStream.set(stream, [...(byStream.get(stream) ?? []), handler]);
    }
    for (const [stream, handlers] of byStream) {
      const durable = `${subscription.durable}-${stream}`.replace(/[^A-Za-z0-9_-]/g, '_');
      try {
        await manager.consumers.info(stream, durable);
      } catch (error) {
        // `status` is the HTTP-like 404; `code` is JetStream's own err_code (10059 stream / 10014 consumer not found).
        if (!(error instanceof JetStreamApiError) || error.status !== 404) throw error;
        await manager.consumers.add(stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          ack_wait: 30 * 1_000_000_000,
        });
      }
      const consumer = await this.js.consumers.get(stream, durable);
      const messages = await consumer.consume({ max_messages: 64 });
      this.running.push(messages);
      void this.pump(messages, new Map(handlers.map((entry) => [entry.contract.subject, entry])));
    }
  }

  private async pump(
    messages: ConsumerMessages,
    handlers: Map<string, EventSubscription['handlers'][number]>,
  ): Promise<void> {
    for await (const message of messages) {
      await this.dispatch(message, handlers);
    }
  }

  private async dispatch(message: JsMsg, handlers: Map<string, EventSubscription['handlers'][number]>) {
    const entry = handlers.get(message.subject);
    if (!entry) {
      message.ack(); // another consumer's event in a shared stream
      return;
    }
    let payload: unknown;
    try {
      payload = await validatePayload(entry.contract.payload as new () => object, decodeJson(message.data));
    } catch (error) {
      const reason = error instanceof ContractError ? error.message : String(error);
      this.logger.error(`Dropping invalid event on ${message.subject} (seq ${message.seq}): ${reason}`);
      message.term();
      return;
    }
    try {
      await entry.handle(payload as never, { subject: message.subject, redelivered: message.redelivered });
      message.ack();
    } catch (error) {
      this.logger.warn(
        `Handler for ${message.subject} failed (seq ${message.seq}), retrying: ${(error as Error)?.message ?? error}`,
      );
      message.nak(NAK_DELAY_MS);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.running.map((messages) => messages.close()));
  }
}
