import { Inject, Injectable, Logger, type MessageEvent, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Observable, type Subscriber } from 'rxjs';
import { ContractError, GetGoalV1, isEndedGoalStatus, ListGoalEventsV1, type GoalEventV1 } from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import { goalEventsConfig } from './goal-events.config.js';
import { GoalEventSession } from './goal-event-session.js';
import { GoalEventTail } from './goal-event-tail.js';

export interface GoalEventStreamRequest {
  goalId: string;
  /** Resume after this seq (Last-Event-ID). */
  afterSeq: number;
  follow: boolean;
  /** Aborted when the response ends for any reason (Nest's `@SseSignal()`): releases what setup acquired. */
  signal: AbortSignal;
  trace: RequestOptions;
}

/** `event:` of the heartbeat is a comment line, which EventSource ignores. */
const HEARTBEAT: MessageEvent = { comment: 'keep-alive' };

/**
 * Opens SSE streams of goals' event logs: subscribes to the live tail first, checks the goal (a missing goal is a
 * 404 before any byte of the stream is sent), reads the first page of the log, then hands both to a
 * `GoalEventSession` that sends every event once, in order. Heartbeats keep idle connections open.
 */
@Injectable()
export class GoalEventStreams implements OnModuleDestroy {
  private readonly logger = new Logger(GoalEventStreams.name);
  private readonly streams = new Set<Subscriber<MessageEvent>>();

  constructor(
    private readonly client: ContractClient,
    private readonly tail: GoalEventTail,
    @Inject(goalEventsConfig.KEY) private readonly config: ConfigType<typeof goalEventsConfig>,
  ) {}

  /** Streams open right now (for tests and diagnostics). */
  get openStreams(): number {
    return this.streams.size;
  }

  /**
   * The stream's events, or `null` when there is nothing to stream: the goal has ended and the client already has
   * every event (an EventSource reconnecting after the end). The controller answers that with 204, the one answer
   * that tells an EventSource to stop reconnecting.
   */
  async open(request: GoalEventStreamRequest): Promise<Observable<MessageEvent> | null> {
    const { goalId, afterSeq, follow, signal, trace } = request;
    const early: GoalEventV1[] = [];
    let session: GoalEventSession | undefined;
    const stopListening = await this.tail.listen(goalId, (event) => {
      if (session) session.offer(event);
      else early.push(event);
    });
    let heartbeat: NodeJS.Timeout | undefined;
    let subscriber: Subscriber<MessageEvent> | undefined;
    const release = () => {
      stopListening();
      session?.stop();
      clearInterval(heartbeat);
      if (subscriber) this.streams.delete(subscriber);
    };
    signal.addEventListener('abort', release, { once: true });
    // The client left while we subscribed: the abort has already fired.
    if (signal.aborted) {
      release();
      return null;
    }
    try {
      const goal = await this.client.request(GetGoalV1, { goalId }, trace);
      const firstPage = await this.readPage(goalId, afterSeq, trace);
      if (afterSeq > firstPage.lastSeq) {
        const constraint = `Last-Event-ID / after is ${afterSeq} but goal ${goalId} has only ${firstPage.lastSeq} events`;
        throw new ContractError('VALIDATION_FAILED', `Invalid request: ${constraint}`, [
          { property: 'Last-Event-ID', constraints: [constraint] },
        ]);
      }
      if (firstPage.items.length === 0 && isEndedGoalStatus(goal.status) && !follow) {
        release();
        return null;
      }
      return new Observable<MessageEvent>((observer) => {
        subscriber = observer;
        this.streams.add(observer);
        session = new GoalEventSession(
          {
            readPage: (after, limit) => this.readPage(goalId, after, trace, limit),
            send: (event) => observer.next({ id: String(event.seq), type: event.type, data: event }),
            end: () => observer.complete(),
            warn: (message) => this.logger.warn(`Goal ${goalId}: ${message}`),
          },
          {
            afterSeq,
            follow,
            status: goal.status,
            pageSize: this.config.pageSize,
            retryDelayMs: this.config.retryDelayMs,
          },
        );
        heartbeat = setInterval(() => {
          observer.next(HEARTBEAT);
          session?.refresh();
        }, this.config.heartbeatMs);
        session.start(firstPage, early.splice(0));
        return release;
      });
    } catch (error) {
      release();
      throw error;
    }
  }

  private readPage(goalId: string, afterSeq: number, trace: RequestOptions, limit = this.config.pageSize) {
    return this.client.request(ListGoalEventsV1, { goalId, afterSeq, limit }, trace);
  }

  /** Ends every open stream, so the HTTP server can close (it waits for open responses). */
  onModuleDestroy(): void {
    for (const subscriber of [...this.streams]) subscriber.complete();
    this.streams.clear();
  }
}
