import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { EventContract } from '@ioa/contracts';
import { EventBus } from '@ioa/messaging';
import type { OutboxEventEntity } from './outbox-event.entity.js';
import { eventContractFor } from './outbox-message.js';
import { OUTBOX_OPTIONS, type OutboxOptions } from './outbox.options.js';
import { OutboxRepository } from './outbox.repository.js';

const DEFAULT_BATCH_SIZE = 200;

interface Failure {
  subject: string;
  error: unknown;
}

/**
 * Publishes outbox rows through the `EventBus`, oldest first, and deletes them once JetStream has acknowledged them.
 * `Transactions.run` calls `flush()` right after a unit of work that wrote events commits (and waits for it, within
 * a bound); a timer, every `retryMs`, picks up whatever a failed publish or a crashed replica left behind.
 *
 * A batch is claimed under a row lock (one replica publishes it), published pipelined — publishes are started in
 * id order on the one connection (NATS keeps the order of a connection's messages) and the acknowledgements are
 * awaited together — and deleted in the same transaction. Only the acknowledged prefix is deleted; the rest is
 * sent again later, in order, and the message ids make JetStream drop what it already has. So every event is
 * published by one replica, in id order, and stored once. Only a failed publish bends that: the events pipelined
 * after it may already be out, so they can be stored before it and a core subscriber can see them twice — which is
 * why events carry what their consumers need to keep the newest (revisions, sequence numbers, timestamps).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly batchSize: number;
  private timer?: NodeJS.Timeout;
  private active?: Promise<void>;
  private queued?: Promise<void>;
  private closed = false;
  private failing = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly events: EventBus,
    @Inject(OUTBOX_OPTIONS) private readonly options: OutboxOptions,
  ) {
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.retry(), this.options.retryMs);
    this.timer.unref();
    // What the previous run of the service (or a crashed replica) left behind goes out at start.
    void this.flush();
  }

  /**
   * Publishes everything in the outbox, including what was committed before this call. Never rejects: a failure is
   * logged and the rows stay for the next attempt. Concurrent callers share one queued pass.
   */
  flush(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.queued) return this.queued;
    const previous = this.active ?? Promise.resolve();
    const pass: Promise<void> = previous.then(async () => {
      this.queued = undefined;
      this.active = pass;
      try {
        await this.drain();
      } catch (error) {
        this.reportFailure('publish outbox events', error);
      } finally {
        if (this.active === pass) this.active = undefined;
      }
    });
    this.queued = pass;
    return pass;
  }

  /** The timer's pass: skipped while a flush is under way, and without a transaction when nothing waits. */
  private async retry(): Promise<void> {
    if (this.active || this.queued) return;
    // A failing look goes on to the flush, which reports the failure (once per streak).
    if (!(await this.outbox.hasPending().catch(() => true))) return;
    await this.flush();
  }

  /**
   * Publishes the rows that existed when the pass began. Rows committed meanwhile belong to the flush their writer
   * asked for (queued behind this one): without that bound a busy service's pass never ends, and a writer awaiting
   * its flush before replying waits for everybody else's events too.
   */
  private async drain(): Promise<void> {
    const watermark = await this.outbox.newestId();
    if (watermark === null) return;
    while (!this.closed) {
      let failure: Failure | undefined;
      const claimed = await this.outbox.claimOldest(
        this.batchSize,
        async (rows) => {
          const outcome = await this.publishInOrder(rows);
          failure = outcome.failure;
          // Only the acknowledged prefix counts as published: later events wait for the failed one, keeping the order.
          return outcome.published;
        },
        watermark,
      );
      if (failure) {
        this.reportFailure(`publish ${failure.subject}`, failure.error);
        return;
      }
      if (this.failing && claimed > 0) {
        this.failing = false;
        this.logger.log('Publishing outbox events again');
      }
      if (claimed < this.batchSize) return;
    }
  }

  /**
   * Publishes rows in id order and says how many, from the first, went out. A run of consecutive JetStream events is
   * pipelined: each publish starts at once, in order, and the acknowledgements are awaited together. A core NATS
   * publish is sent synchronously while a JetStream one first awaits the stream set-up, so a run of the other kind
   * starts only once the previous run is out; that keeps the order on the wire.
   */
  private async publishInOrder(rows: OutboxEventEntity[]): Promise<{ published: number; failure?: Failure }> {
    const events = rows.map((row) => ({ row, contract: this.contractOf(row) }));
    let start = 0;
    while (start < events.length) {
      const stored = Boolean(events[start].contract?.stream);
      let end = start + 1;
      while (end < events.length && Boolean(events[end].contract?.stream) === stored) end++;
      const outcomes = await Promise.allSettled(
        events
          .slice(start, end)
          .map(({ row, contract }) =>
            contract ? this.events.publish(contract, row.payload, { messageId: row.messageId }) : Promise.resolve(),
          ),
      );
      const failedAt = outcomes.findIndex((outcome) => outcome.status === 'rejected');
      if (failedAt !== -1) {
        const error = (outcomes[failedAt] as PromiseRejectedResult).reason as unknown;
        return { published: start + failedAt, failure: { subject: events[start + failedAt].row.subject, error } };
      }
      start = end;
    }
    return { published: events.length };
  }

  private contractOf(row: OutboxEventEntity): EventContract<unknown> | undefined {
    const contract = eventContractFor(row.subject);
    // Only a rolled-back deployment could leave an event this version does not know; it can never be sent.
    if (!contract) this.logger.error(`Dropping outbox row ${row.id}: no event contract for ${row.subject}`);
    return contract;
  }

  /** Logs the first failure of a streak only: a broker outage must not flood the log once per retry. */
  private reportFailure(action: string, error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(`Could not ${action}, will retry: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** Runs before any module shuts down, so the pass under way still has its database and NATS connections. */
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await (this.queued ?? this.active);
  }
}
