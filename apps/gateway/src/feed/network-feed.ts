import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type MessageEvent, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Observable, type Subscriber } from 'rxjs';
import {
  ContractError,
  GetGoalV1,
  REGISTRY_EVENTS_STREAM,
  SCHEDULER_EVENTS_STREAM,
  type GoalStatusChangedV1Event,
} from '@ioa/contracts';
import { ContractClient, EventBus, NATS_CONNECTION, type RequestOptions } from '@ioa/messaging';
import { goalEventsConfig } from '../goals/goal-events.config.js';
import { FEED_AGENT_EVENTS, FEED_GOAL_EVENT_SUBJECT, goalFeedEventType, type FeedEventData } from './feed-event.js';
import { formatFeedPosition, type FeedPosition } from './feed-position.js';

export interface NetworkFeedRequest {
  /** Resume after this position (Last-Event-ID); undefined starts at the streams' ends (what happens from now). */
  after: FeedPosition | undefined;
  /** Aborted when the response ends for any reason (Nest's `@SseSignal()`). */
  signal: AbortSignal;
  trace: RequestOptions;
}

/** The name prefix of the feed's consumers (`gateway_feed_<reader>_<n>`), so an operator can tell them apart. */
export const FEED_CONSUMER_PREFIX = 'gateway_feed';

/** `event:` of the heartbeat is a comment line, which EventSource ignores. */
const HEARTBEAT: MessageEvent = { comment: 'keep-alive' };

/** One stream the feed reads: what it keeps of it, and where in the position its sequence goes. */
interface FeedSource {
  stream: string;
  /**
   * One subject, or the whole stream: a consumer with several filter subjects needs nats-server 2.10, and the
   * platform runs on 2.9 too. Messages the feed does not report are skipped (their position still advances).
   */
  subject: string | undefined;
  seqOf(position: FeedPosition): number;
  advance(position: FeedPosition, seq: number): void;
  toEvent(message: JsMsg, trace: RequestOptions): Promise<FeedEventData | undefined>;
}

/**
 * The network-wide live feed: agents joining, changing presence and leaving (the registry's JetStream stream) and
 * goals starting, changing and ending (the scheduler's), read with one ordered consumer per stream started right
 * after the reader's position. Both streams are durable and ordered, which is what makes resuming exact; the feed
 * keeps no state of its own. Each reader gets its own consumers (ephemeral, gone when it leaves).
 */
@Injectable()
export class NetworkFeed implements OnModuleDestroy {
  private readonly logger = new Logger(NetworkFeed.name);
  private readonly readers = new Set<Subscriber<MessageEvent>>();

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly events: EventBus,
    private readonly client: ContractClient,
    @Inject(goalEventsConfig.KEY) private readonly config: ConfigType<typeof goalEventsConfig>,
  ) {}

  /** Readers connected right now (for tests and diagnostics). */
  get openFeeds(): number {
    return this.readers.size;
  }

  async open(request: NetworkFeedRequest): Promise<Observable<MessageEvent>> {
    const { signal, trace } = request;
    const sources = this.sources();
    // The streams exist once their owners have booted; creating them here too lets the feed open first.
    await this.events.ensureStreams();
    const ends = await this.streamEnds();
    const start = request.after ?? ends;
    for (const source of sources) {
      if (source.seqOf(start) > source.seqOf(ends)) {
        const constraint = `Last-Event-ID / after ${formatFeedPosition(start)} is ahead of the feed (${formatFeedPosition(ends)})`;
        throw new ContractError('VALIDATION_FAILED', `Invalid request: ${constraint}`, [
          { property: 'Last-Event-ID', constraints: [constraint] },
        ]);
      }
    }
    return new Observable<MessageEvent>((observer) => {
      this.readers.add(observer);
      const position = { ...start };
      const running: ConsumerMessages[] = [];
      let stopped = false;
      // The reader's first event names where it starts, so a reconnect before anything happened resumes there.
      observer.next({
        id: formatFeedPosition(position),
        type: 'ready',
        data: { position: formatFeedPosition(position) },
      });
      const heartbeat = setInterval(() => observer.next(HEARTBEAT), this.config.heartbeatMs);
      const stop = () => {
        if (stopped) return;
        stopped = true;
        clearInterval(heartbeat);
        this.readers.delete(observer);
        for (const messages of running) void messages.close().catch(() => undefined);
      };
      signal.addEventListener('abort', stop, { once: true });
      for (const source of sources) {
        void this.read(source, source.seqOf(start), trace, running, (message, event) => {
          if (stopped) return;
          source.advance(position, message.seq);
          if (event) observer.next({ id: formatFeedPosition(position), type: event.type, data: event });
        }).catch((error: unknown) => {
          if (stopped) return;
          this.logger.warn(`Feed reader of ${source.stream} failed: ${String(error)}`);
          observer.error(error);
        });
      }
      return stop;
    });
  }

  /** Reads one stream after `afterSeq`, in order, handing each message (and its feed event, if kept) to `deliver`. */
  private async read(
    source: FeedSource,
    afterSeq: number,
    trace: RequestOptions,
    running: ConsumerMessages[],
    deliver: (message: JsMsg, event: FeedEventData | undefined) => void,
  ): Promise<void> {
    // Ordered consumers are ephemeral (the server drops one 5 minutes after its reader left). Each reader's name is
    // its own: two readers with the same name on a stream would be one consumer.
    const consumer = await jetstream(this.connection).consumers.get(source.stream, {
      name_prefix: `${FEED_CONSUMER_PREFIX}_${randomUUID().replaceAll('-', '')}`,
      ...(source.subject ? { filter_subjects: source.subject } : {}),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: afterSeq + 1,
    });
    const messages = await consumer.consume();
    running.push(messages);
    // One message at a time: a goal event may wait for a visibility check, and order must hold across it.
    for await (const message of messages) deliver(message, await source.toEvent(message, trace));
  }

  private async streamEnds(): Promise<FeedPosition> {
    const manager = await jetstreamManager(this.connection);
    const [registry, scheduler] = await Promise.all([
      manager.streams.info(REGISTRY_EVENTS_STREAM),
      manager.streams.info(SCHEDULER_EVENTS_STREAM),
    ]);
    return { registrySeq: registry.state.last_seq, schedulerSeq: scheduler.state.last_seq };
  }

  private sources(): FeedSource[] {
    // Per reader: whether the caller may see a goal, asked once per goal (a member sees its account's goals).
    const visibleGoals = new Map<string, Promise<boolean>>();
    return [
      {
        stream: REGISTRY_EVENTS_STREAM,
        // Every registry event is an agent's: the whole stream, each subject mapped by FEED_AGENT_EVENTS.
        subject: undefined,
        seqOf: (position) => position.registrySeq,
        advance: (position, seq) => (position.registrySeq = seq),
        // Agents are the network's directory, visible to every authenticated caller (as GET /v1/agents is).
        toEvent: (message) => {
          const type = FEED_AGENT_EVENTS.get(message.subject);
          return Promise.resolve(
            type && { type, subject: message.subject, at: message.time.toISOString(), payload: message.json() },
          );
        },
      },
      {
        stream: SCHEDULER_EVENTS_STREAM,
        subject: FEED_GOAL_EVENT_SUBJECT,
        seqOf: (position) => position.schedulerSeq,
        advance: (position, seq) => (position.schedulerSeq = seq),
        toEvent: async (message, trace) => {
          const payload = message.json<GoalStatusChangedV1Event>();
          const goalId = payload.goal?.id;
          if (typeof goalId !== 'string' || !payload.goal.status) return undefined;
          let visible = visibleGoals.get(goalId);
          if (!visible) {
            visible = this.mayRead(goalId, trace);
            visibleGoals.set(goalId, visible);
          }
          if (!(await visible)) return undefined;
          return {
            type: goalFeedEventType(payload),
            subject: message.subject,
            at: message.time.toISOString(),
            payload,
          };
        },
      },
    ];
  }

  /** Admins see every goal; a member only its account's (the scheduler answers NOT_FOUND for another's). */
  private async mayRead(goalId: string, trace: RequestOptions): Promise<boolean> {
    if (!trace.principal || trace.principal.role === 'admin') return true;
    try {
      await this.client.request(GetGoalV1, { goalId }, trace);
      return true;
    } catch (error) {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }

  /** Ends every open feed, so the HTTP server can close (it waits for open responses). */
  onModuleDestroy(): void {
    for (const reader of [...this.readers]) reader.complete();
    this.readers.clear();
  }
}
