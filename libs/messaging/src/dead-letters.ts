import { Logger } from '@nestjs/common';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  JetStreamApiError,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import {
  ContractError,
  DEAD_LETTER_HEADERS,
  DEAD_LETTER_REASONS,
  DEAD_LETTER_SUBJECTS,
  DEAD_LETTERS_STREAM,
  deadLetterSubjectsOf,
  MAX_DEAD_LETTER_ERROR_LENGTH,
  MAX_LISTED_PAYLOAD_LENGTH,
  type DeadLetterReason,
  type DeadLetterV1,
  type ListDeadLettersV1Request,
  type ListDeadLettersV1Response,
  type ReplayDeadLetterV1Response,
} from '@ioa/contracts';

/** What a consumer knows about an event it gives up on. */
export interface DeadLetterRecord {
  service: string;
  consumer: string;
  reason: DeadLetterReason;
  error: string;
}

const DUPLICATE_WINDOW_NS = 2 * 60 * 1_000_000_000;
const DEAD_LETTER_MAX_AGE_NS = 30 * 24 * 60 * 60 * 1_000_000_000;
/** How long a listing waits for the server to hand over the dead letters it said it has. */
const LIST_FETCH_EXPIRES_MS = 5_000;
const READER_INACTIVE_THRESHOLD_NS = 30 * 1_000_000_000;
const decoder = new TextDecoder();

/**
 * The `IOA_DEAD_LETTERS` stream: where consumers put the events they gave up on, and where an operator lists and
 * replays them. A dead letter keeps the original body byte for byte and carries its story in headers; it is stored
 * on `ioa.<service>.dead-letter.<consumer>.recorded.v1`, so the server counts them per consumer without reading them.
 */
export class DeadLetterStore {
  private readonly logger = new Logger(DeadLetterStore.name);
  private readonly js: JetStreamClient;
  private manager?: Promise<JetStreamManager>;

  constructor(private readonly connection: NatsConnection) {
    this.js = jetstream(connection);
  }

  /** Creates the stream (idempotent; every service may call it). */
  async ensureStream(): Promise<void> {
    const manager = await this.jsm();
    const config = {
      name: DEAD_LETTERS_STREAM,
      subjects: [DEAD_LETTER_SUBJECTS],
      duplicate_window: DUPLICATE_WINDOW_NS,
      // Kept for a month: long enough to notice and replay, bounded against a peer that floods invalid events.
      max_age: DEAD_LETTER_MAX_AGE_NS,
    };
    try {
      await manager.streams.info(DEAD_LETTERS_STREAM);
      await manager.streams.update(DEAD_LETTERS_STREAM, config);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await manager.streams.add(config);
    }
  }

  /**
   * Stores `message` as a dead letter of `record.consumer`. The message id is the consumer and the original stream
   * sequence, so a consumer that dies between this and its ack and dead-letters the event again stores it once.
   */
  async record(message: JsMsg, subject: string, record: DeadLetterRecord): Promise<void> {
    const headers = natsHeaders();
    headers.set(DEAD_LETTER_HEADERS.consumer, record.consumer);
    headers.set(DEAD_LETTER_HEADERS.subject, message.subject);
    headers.set(DEAD_LETTER_HEADERS.streamSequence, String(message.seq));
    headers.set(DEAD_LETTER_HEADERS.deliveries, String(message.info.deliveryCount));
    headers.set(DEAD_LETTER_HEADERS.reason, record.reason);
    headers.set(DEAD_LETTER_HEADERS.error, headerText(record.error, MAX_DEAD_LETTER_ERROR_LENGTH));
    headers.set(DEAD_LETTER_HEADERS.at, new Date().toISOString());
    await this.js.publish(subject, message.data, { headers, msgID: `${record.consumer}:${message.seq}` });
  }

  /** Dead letters per consumer name of `service`, as the server counts them (one subject per consumer). */
  async countsByConsumer(service: string): Promise<Map<string, number>> {
    const manager = await this.jsm();
    const info = await manager.streams.info(DEAD_LETTERS_STREAM, { subjects_filter: deadLetterSubjectsOf(service) });
    const counts = new Map<string, number>();
    for (const [subject, count] of Object.entries(info.state.subjects ?? {})) {
      counts.set(consumerOfSubject(service, subject), count);
    }
    return counts;
  }

  async list(service: string, request: ListDeadLettersV1Request): Promise<ListDeadLettersV1Response> {
    const counts = await this.countsByConsumer(service);
    const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
    if (total === 0) return { deadLetters: [], total };
    // A throw-away consumer from `afterId` says at once how many follow, so the fetch never waits for more that
    // do not exist; it is deleted afterwards (and would expire by itself if this process died first).
    const manager = await this.jsm();
    const reader = await manager.consumers.add(DEAD_LETTERS_STREAM, {
      filter_subject: deadLetterSubjectsOf(service),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: request.afterId + 1,
      ack_policy: AckPolicy.None,
      inactive_threshold: READER_INACTIVE_THRESHOLD_NS,
      mem_storage: true,
    });
    const deadLetters: DeadLetterV1[] = [];
    try {
      const wanted = Math.min(request.limit, reader.num_pending);
      if (wanted > 0) {
        const consumer = await this.js.consumers.get(DEAD_LETTERS_STREAM, reader.name);
        const messages = await consumer.fetch({ max_messages: wanted, expires: LIST_FETCH_EXPIRES_MS });
        for await (const message of messages) {
          deadLetters.push(toDeadLetter(service, message.seq, message.subject, message.headers, message.data));
          if (deadLetters.length >= wanted) break;
        }
      }
    } finally {
      await manager.consumers.delete(DEAD_LETTERS_STREAM, reader.name).catch(() => undefined);
    }
    return { deadLetters, total };
  }

  /**
   * Publishes the dead letter's original body again on its original subject, under a new message id (so every
   * consumer of that subject sees it as a new event, while a retried replay is de-duplicated), then deletes it.
   */
  async replay(service: string, id: number): Promise<ReplayDeadLetterV1Response> {
    const manager = await this.jsm();
    const stored = await manager.streams.getMessage(DEAD_LETTERS_STREAM, { seq: id }).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });
    const prefix = `ioa.${service}.dead-letter.`;
    if (!stored || !stored.subject.startsWith(prefix)) throw ContractError.notFound('Dead letter', String(id));
    const subject = stored.header.get(DEAD_LETTER_HEADERS.subject);
    if (!subject) throw new ContractError('INVALID_STATE', `Dead letter ${id} does not say where it came from`);
    const messageId = `dead-letter-replay:${id}`;
    await this.js.publish(subject, stored.data, { msgID: messageId });
    await manager.streams.deleteMessage(DEAD_LETTERS_STREAM, id).catch((error: unknown) => {
      // Already gone: a concurrent replay of the same id published the same message id, which JetStream dropped.
      if (!isNotFound(error)) throw error;
    });
    this.logger.log(`Replayed dead letter ${id} of ${service} on ${subject}`);
    return { id, subject, messageId };
  }

  private jsm(): Promise<JetStreamManager> {
    this.manager ??= jetstreamManager(this.connection).catch((error: unknown) => {
      this.manager = undefined;
      throw error;
    });
    return this.manager;
  }
}

function toDeadLetter(
  service: string,
  id: number,
  subject: string,
  headers: { get(name: string): string } | undefined,
  data: Uint8Array,
): DeadLetterV1 {
  const header = (name: string) => headers?.get(name) ?? '';
  const reason = header(DEAD_LETTER_HEADERS.reason);
  const text = decoder.decode(data);
  return {
    id,
    service,
    consumer: header(DEAD_LETTER_HEADERS.consumer) || consumerOfSubject(service, subject),
    subject: header(DEAD_LETTER_HEADERS.subject),
    streamSequence: Number(header(DEAD_LETTER_HEADERS.streamSequence)) || 0,
    deliveries: Number(header(DEAD_LETTER_HEADERS.deliveries)) || 0,
    reason: (DEAD_LETTER_REASONS as readonly string[]).includes(reason)
      ? (reason as DeadLetterReason)
      : 'handler_failed',
    error: header(DEAD_LETTER_HEADERS.error),
    deadLetteredAt: header(DEAD_LETTER_HEADERS.at) || new Date(0).toISOString(),
    payload: text.length > MAX_LISTED_PAYLOAD_LENGTH ? text.slice(0, MAX_LISTED_PAYLOAD_LENGTH) : text,
    payloadTruncated: text.length > MAX_LISTED_PAYLOAD_LENGTH,
    payloadBytes: data.length,
  };
}

/** `ioa.<service>.dead-letter.<token>.recorded.v1` → the consumer name `<service>-<token>` (see `EventBus`). */
function consumerOfSubject(service: string, subject: string): string {
  const token = subject.split('.')[3] ?? subject;
  return `${service}-${token}`;
}

/** Header values are one line of printable text. */
function headerText(text: string, maxLength: number): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a header may not carry
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}

export function isNotFound(error: unknown): boolean {
  // `status` is the HTTP-like 404; `code` is JetStream's own err_code (10059 stream, 10014 consumer, 10037 message).
  return error instanceof JetStreamApiError && error.status === 404;
}
