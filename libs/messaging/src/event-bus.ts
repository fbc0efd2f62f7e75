import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import {
  ALL_CONTRACTS,
  ContractError,
  deadLetterSubject,
  type ConsumerHealthV1,
  type DeadLetterReason,
  type EventContract,
} from '@ioa/contracts';
import { DEFAULT_EVENT_RETRY_BACKOFF_MS, natsConfig } from '@ioa/config';
import { NATS_CONNECTION } from './nats-connection.js';
import { decodeJson, encodeJson } from './wire.js';
import { validatePayload } from './contract-validation.pipe.js';
import { DeadLetterStore, isNotFound } from './dead-letters.js';
import { stuckReason } from './consumer-health.js';
import { StreamOrderedQueue } from './stream-ordered-queue.js';

export interface PublishOptions {
  /**
   * Stable id of this fact (for example `<agentId>:<revision>`). JetStream drops a second publish with the same id
   * inside its duplicate window, so a retried publish never delivers an event twice.
   */
  messageId?: string;
}

export type EventHandler<T> = (payload: T, message: { subject: string; redelivered: boolean }) => Promise<void>;

export interface EventSubscription {
  /**
   * The service's name (a subject token: lowercase letters, digits and `-`). Each handled subject gets the durable
   * consumer `<durable>-<subject>`, so replicas share the work and a restart resumes where it was; its dead letters
   * are the service's (`ioa.<durable>.dead-letter.*.recorded.v1`).
   */
  durable: string;
  handlers: Array<{ contract: EventContract<unknown>; handle: EventHandler<never> }>;
}

/** How consumers retry a failing handler, when they give up, and when health calls one stuck. */
export interface EventDeliveryPolicy {
  /** Delay before each redelivery of a failed event (the last one repeats). */
  backoffMs: number[];
  /** Deliveries before the event becomes a dead letter; JetStream wants more than `backoffMs.length`. */
  maxDeliveries: number;
  stuckAfterMs: number;
  /** Unacknowledged events a consumer may hold (waiting retries included) before the server stops delivering. */
  maxAckPending: number;
}

export const DEFAULT_EVENT_DELIVERY_POLICY: Readonly<EventDeliveryPolicy> = Object.freeze({
  backoffMs: DEFAULT_EVENT_RETRY_BACKOFF_MS,
  maxDeliveries: DEFAULT_EVENT_RETRY_BACKOFF_MS.length + 1,
  stuckAfterMs: 60_000,
  // Poison events waiting for their retry count here too; the limit must leave room for a burst of them.
  maxAckPending: 10_000,
});

const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000;
const NS_PER_MS = 1_000_000;
/** Events a consumer pulls ahead; small, since they are handled one at a time and their ack clock runs. */
const PREFETCH = 16;

/** Typed helper to build a handler entry without losing the payload type. */
export function on<T>(contract: EventContract<T>, handle: EventHandler<T>) {
  return { contract: contract as EventContract<unknown>, handle: handle as EventHandler<never> };
}

/** One running durable consumer: one subject of one stream for one service. */
interface RunningConsumer {
  service: string;
  stream: string;
  name: string;
  subject: string;
  messages: ConsumerMessages;
  /** When it last got an event (or started); health's "nothing moves" clock. */
  lastDeliveryAt: number;
  /** When the handler now running got its event; undefined while none runs. */
  handlingSince?: number;
  lastDeliveredSeq: number;
}

/**
 * Publishes and consumes contract events. Events that name a stream go through JetStream (stored, acked,
 * de-duplicated by message id, redelivered after a crash); the others are plain core NATS publishes.
 * Core NATS subscribers see stream events too, so an external agent can simply subscribe.
 *
 * Consuming never stalls: each consumer receives only its subject (`filter_subject`), a handler that throws is
 * retried with JetStream's `backoff` up to `max_deliver` deliveries, and then the event becomes a dead letter
 * (with the error and the consumer's name) and is acknowledged, so the consumer moves on.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly logger = new Logger(EventBus.name);
  private readonly js: JetStreamClient;
  private readonly running: RunningConsumer[] = [];
  private readonly policy: EventDeliveryPolicy;
  private streamsReady?: Promise<void>;
  /** Where consumers put what they give up on; operators list and replay from it. */
  readonly deadLetters: DeadLetterStore;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Optional() @Inject(natsConfig.KEY) nats?: { events?: Partial<EventDeliveryPolicy> },
  ) {
    this.js = jetstream(connection);
    this.deadLetters = new DeadLetterStore(connection);
    this.policy = checkedPolicy({ ...DEFAULT_EVENT_DELIVERY_POLICY, ...nats?.events });
  }

  /** Creates (or updates) every stream the contract declares, and the dead letters'. Idempotent. */
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
        if (!isNotFound(error)) throw error;
        await manager.streams.add(config);
      }
    }
    await this.deadLetters.ensureStream();
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
   * Starts one durable pull consumer per handled subject, created or brought up to date with the delivery policy.
   * The subscription's events are handled one at a time; a payload that fails validation becomes a dead letter at
   * once (it can never succeed), a handler that throws is retried with backoff and dead-lettered after the last
   * delivery.
   */
  async subscribe(subscription: EventSubscription): Promise<void> {
    const service = subscription.durable;
    if (!/^[a-z0-9][a-z0-9-]*$/.test(service)) {
      throw new Error(`Durable "${service}" must be a subject token (lowercase letters, digits and "-")`);
    }
    await this.ensureStreams();
    const manager = await jetstreamManager(this.connection);
    const queue = new StreamOrderedQueue();
    const { startAt, retired } = await this.findStreamWideConsumers(manager, service, subscription.handlers);
    for (const entry of subscription.handlers) {
      const stream = entry.contract.stream;
      if (!stream) throw new Error(`${entry.contract.subject} is not a stream event; use a core subscription`);
      const token = subjectToken(entry.contract.subject);
      const name = `${service}-${token}`;
      await this.ensureConsumer(manager, stream, name, entry.contract.subject, startAt.get(stream));
      const consumer = await this.js.consumers.get(stream, name);
      const messages = await consumer.consume({ max_messages: PREFETCH });
      const running: RunningConsumer = {
        service,
        stream,
        name,
        subject: entry.contract.subject,
        messages,
        lastDeliveryAt: Date.now(),
        lastDeliveredSeq: -1,
      };
      this.running.push(running);
      const deadLetterTo = deadLetterSubject(service, token);
      void this.pump(running, (message) =>
        queue.run(stream, message.seq, () => this.dispatch(message, running, entry, deadLetterTo)),
      );
    }
    for (const [stream, legacy] of retired) {
      await manager.consumers.delete(stream, legacy).catch((error: unknown) => {
        if (!isNotFound(error)) throw error; // another replica retired it first
      });
    }
  }

  /**
   * Earlier versions used one unfiltered consumer per stream (`<service>-<STREAM>`). Its replacements start where it
   * had acknowledged everything, so an upgrade neither loses nor replays events; it is deleted once they exist.
   */
  private async findStreamWideConsumers(
    manager: JetStreamManager,
    service: string,
    handlers: EventSubscription['handlers'],
  ): Promise<{ startAt: Map<string, number>; retired: Array<[stream: string, consumer: string]> }> {
    const startAt = new Map<string, number>();
    const retired: Array<[string, string]> = [];
    const streams = new Set(handlers.map((entry) => entry.contract.stream).filter((stream) => stream !== undefined));
    for (const stream of streams) {
      const legacy = `${service}-${stream}`.replace(/[^A-Za-z0-9_-]/g, '_');
      const info = await manager.consumers.info(stream, legacy).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      if (!info) continue;
      startAt.set(stream, info.ack_floor.stream_seq + 1);
      retired.push([stream, legacy]);
      this.logger.log(
        `Replacing stream-wide consumer ${legacy} by per-subject consumers from seq ${startAt.get(stream)}`,
      );
    }
    return { startAt, retired };
  }

  /** Creates the consumer, or updates it when its configuration differs from the policy (checked at every boot). */
  private async ensureConsumer(
    manager: JetStreamManager,
    stream: string,
    name: string,
    subject: string,
    startSequence: number | undefined,
  ): Promise<void> {
    const desired = this.consumerConfig(subject);
    const existing = await manager.consumers.info(stream, name).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (!existing) {
      await manager.consumers.add(stream, {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        ...(startSequence === undefined
          ? { deliver_policy: DeliverPolicy.All }
          : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSequence }),
        ...desired,
      });
      return;
    }
    const changed = differences(existing, desired);
    if (changed.length === 0) return;
    if (changed.includes('filter_subject') && existing.config.filter_subject) {
      throw new Error(`Consumer ${name} on ${stream} filters ${existing.config.filter_subject}, not ${subject}`);
    }
    this.logger.log(`Updating consumer ${name} on ${stream}: ${changed.join(', ')}`);
    await manager.consumers.update(stream, name, desired);
  }

  private consumerConfig(subject: string): Partial<ConsumerConfig> & {
    filter_subject: string;
    backoff: number[];
    max_deliver: number;
    max_ack_pending: number;
    ack_wait: number;
  } {
    return {
      filter_subject: subject,
      // With a backoff, JetStream takes the first delay as the ack wait whatever is asked (nats-server 2.9 and
      // later); asking for it avoids an "update" at every boot and keeps the heartbeat below in step with it.
      ack_wait: this.policy.backoffMs[0] * NS_PER_MS,
      backoff: this.policy.backoffMs.map((delay) => delay * NS_PER_MS),
      max_deliver: this.policy.maxDeliveries,
      max_ack_pending: this.policy.maxAckPending,
    };
  }

  private async pump(running: RunningConsumer, handle: (message: JsMsg) => Promise<void>): Promise<void> {
    for await (const message of running.messages) {
      running.lastDeliveryAt = Date.now();
      try {
        await handle(message);
      } catch (error) {
        // `dispatch` settles every message itself; this is the connection failing under it. The server redelivers
        // the message after its ack wait, and a consumer loop must never end on one bad moment.
        this.logger.error(`${running.name}: could not settle seq ${message.seq}: ${describe(error)}`);
      }
    }
  }

  private async dispatch(
    message: JsMsg,
    running: RunningConsumer,
    entry: EventSubscription['handlers'][number],
    deadLetterTo: string,
  ): Promise<void> {
    let payload: unknown;
    try {
      payload = await validatePayload(entry.contract.payload as new () => object, decodeJson(message.data));
    } catch (error) {
      const reason = error instanceof ContractError ? error.message : describe(error);
      await this.giveUp(message, running, deadLetterTo, 'invalid_payload', reason);
      return;
    }
    // A handler that runs long tells the server it is still working, so the event is not delivered twice.
    const heartbeat = setInterval(() => message.working(), Math.max(50, this.heartbeatMs(message)));
    running.handlingSince = Date.now();
    try {
      await entry.handle(payload as never, { subject: message.subject, redelivered: message.redelivered });
      message.ack();
    } catch (error) {
      const deliveries = message.info.deliveryCount;
      if (deliveries >= this.policy.maxDeliveries) {
        await this.giveUp(message, running, deadLetterTo, 'handler_failed', describe(error));
        return;
      }
      const delay = this.policy.backoffMs[Math.min(deliveries, this.policy.backoffMs.length) - 1] ?? 0;
      this.logger.warn(
        `${running.name}: handler for ${message.subject} failed (seq ${message.seq}, delivery ${deliveries} of ` +
          `${this.policy.maxDeliveries}), retrying in ${delay} ms: ${describe(error)}`,
      );
      message.nak(delay);
    } finally {
      clearInterval(heartbeat);
      running.handlingSince = undefined;
    }
  }

  /**
   * Half the server's ack deadline for this delivery: JetStream times delivery n by backoff step n (the first
   * step is also the ack wait), so a handler slower than the first delay is kept from being delivered twice.
   */
  private heartbeatMs(message: JsMsg): number {
    const step = Math.min(message.info.deliveryCount, this.policy.backoffMs.length) - 1;
    return this.policy.backoffMs[Math.max(step, 0)] / 2;
  }

  /** Stores the event as a dead letter, then acknowledges it; if storing fails, the event stays for redelivery. */
  private async giveUp(
    message: JsMsg,
    running: RunningConsumer,
    deadLetterTo: string,
    reason: DeadLetterReason,
    error: string,
  ): Promise<void> {
    try {
      await this.deadLetters.record(message, deadLetterTo, {
        service: running.service,
        consumer: running.name,
        reason,
        error,
      });
      message.ack();
      this.logger.error(
        `${running.name}: ${message.subject} seq ${message.seq} is a dead letter after ` +
          `${message.info.deliveryCount} deliveries (${reason}): ${error}`,
      );
    } catch (storeError) {
      this.logger.error(
        `${running.name}: could not dead-letter ${message.subject} seq ${message.seq} (${describe(storeError)}); ` +
          'leaving it for redelivery',
      );
      message.nak(this.policy.backoffMs[0]);
    }
  }

  /** Per consumer of this process: the server's counts, its dead letters, and whether it is stuck. */
  async consumerHealth(): Promise<ConsumerHealthV1[]> {
    if (this.running.length === 0) return [];
    const manager = await jetstreamManager(this.connection);
    const services = [...new Set(this.running.map((running) => running.service))];
    const deadLetterCounts = new Map<string, number>();
    for (const service of services) {
      for (const [consumer, count] of await this.deadLetters.countsByConsumer(service)) {
        deadLetterCounts.set(consumer, count);
      }
    }
    const now = Date.now();
    return Promise.all(
      this.running.map(async (running): Promise<ConsumerHealthV1> => {
        const info = await manager.consumers.info(running.stream, running.name);
        // Another replica delivering counts as movement too: the server's delivered sequence is shared.
        if (info.delivered.consumer_seq !== running.lastDeliveredSeq) {
          if (running.lastDeliveredSeq !== -1) running.lastDeliveryAt = now;
          running.lastDeliveredSeq = info.delivered.consumer_seq;
        }
        const counts = {
          pending: info.num_pending,
          ackPending: info.num_ack_pending,
          maxAckPending: info.config.max_ack_pending ?? 0,
        };
        const progress = {
          msSinceDelivery: now - running.lastDeliveryAt,
          msHandling: running.handlingSince === undefined ? 0 : now - running.handlingSince,
        };
        const reason = stuckReason(counts, progress, this.policy.stuckAfterMs);
        const health: ConsumerHealthV1 = {
          name: running.name,
          subject: running.subject,
          ...counts,
          redelivered: info.num_redelivered,
          deadLetters: deadLetterCounts.get(running.name) ?? 0,
          stuck: reason !== undefined,
        };
        if (reason) health.stuckReason = reason;
        return health;
      }),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.running.map((running) => running.messages.close()));
  }
}

/** `ioa.chat.message.posted.v1` → `chat-message-posted-v1`: a consumer-name and subject token. */
function subjectToken(subject: string): string {
  return subject.replace(/^ioa\./, '').replace(/\./g, '-');
}

/** Which of the policy's settings the existing consumer does not have. */
function differences(existing: ConsumerInfo, desired: ReturnType<EventBus['consumerConfig']>): string[] {
  const config = existing.config;
  const changed: string[] = [];
  if ((config.filter_subject ?? '') !== desired.filter_subject) changed.push('filter_subject');
  if (config.ack_wait !== desired.ack_wait) changed.push('ack_wait');
  if (config.max_deliver !== desired.max_deliver) changed.push('max_deliver');
  if (config.max_ack_pending !== desired.max_ack_pending) changed.push('max_ack_pending');
  if (JSON.stringify(config.backoff ?? []) !== JSON.stringify(desired.backoff)) changed.push('backoff');
  return changed;
}

function checkedPolicy(policy: EventDeliveryPolicy): EventDeliveryPolicy {
  if (policy.backoffMs.length === 0 || policy.backoffMs.some((delay) => !Number.isInteger(delay) || delay < 1)) {
    throw new Error('Event retry backoff must be one or more positive delays in milliseconds');
  }
  if (!Number.isInteger(policy.maxDeliveries) || policy.maxDeliveries <= policy.backoffMs.length) {
    throw new Error(
      `Event max deliveries (${policy.maxDeliveries}) must be more than the backoff steps (${policy.backoffMs.length})`,
    );
  }
  return policy;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
