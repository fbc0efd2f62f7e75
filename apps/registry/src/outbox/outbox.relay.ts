import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ALL_CONTRACTS, type EventContract } from '@ioa/contracts';
import { EventBus } from '@ioa/messaging';
import { OutboxRepository } from './outbox.repository.js';

const BATCH_SIZE = 100;
/** Rows left behind by a failed publish (or a crashed replica) are retried this often. */
const RETRY_INTERVAL_MS = 1000;

const EVENT_CONTRACTS = new Map<string, EventContract<unknown>>(
  ALL_CONTRACTS.filter((contract) => contract.kind === 'event').map((contract) => [contract.subject, contract]),
);

/**
 * Publishes outbox rows through the `EventBus`, oldest first, and deletes them once JetStream has acknowledged them.
 * Services call `flush()` right after their transaction commits (so the event is out before the reply); a timer
 * picks up whatever a failed publish or another, crashed replica left behind. Several replicas may publish the same
 * row; the message id makes JetStream keep one.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private timer?: NodeJS.Timeout;
  private active?: Promise<void>;
  private queued?: Promise<void>;
  private closed = false;
  private failing = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly events: EventBus,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.flush(), RETRY_INTERVAL_MS);
    this.timer.unref();
    void this.flush();
  }

  /**
   * Publishes everything in the outbox, including what was written before this call. Never rejects: a failure is
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
        this.reportFailure('publish registry events', error);
      } finally {
        if (this.active === pass) this.active = undefined;
      }
    });
    this.queued = pass;
    return pass;
  }

  private async drain(): Promise<void> {
    while (!this.closed) {
      let rows;
      try {
        rows = await this.outbox.oldest(BATCH_SIZE);
      } catch (error) {
        this.reportFailure('read the outbox', error);
        return;
      }
      const published: string[] = [];
      let failed = false;
      for (const row of rows) {
        const contract = EVENT_CONTRACTS.get(row.subject);
        if (!contract) {
          // Only a rolled-back deployment could leave an event this version does not know; it can never be sent.
          this.logger.error(`Dropping outbox row ${row.id}: no event contract for ${row.subject}`);
          published.push(row.id);
          continue;
        }
        try {
          await this.events.publish(contract, row.payload, { messageId: row.messageId });
          published.push(row.id);
        } catch (error) {
          this.reportFailure(`publish ${row.subject}`, error);
          failed = true;
          break; // keep the order: later events wait for this one
        }
      }
      try {
        await this.outbox.remove(published);
      } catch (error) {
        // The rows are published again later; their message ids make the stream drop the repeats.
        this.reportFailure('clear published outbox rows', error);
        return;
      }
      if (!failed && published.length > 0 && this.failing) {
        this.failing = false;
        this.logger.log('Publishing registry events again');
      }
      if (failed || rows.length < BATCH_SIZE) return;
    }
  }

  /** Logs the first failure of a streak only: a broker outage must not flood the log once per second. */
  private reportFailure(action: string, error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(`Could not ${action}, will retry: ${error instanceof Error ? error.message : String(error)}`);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await (this.queued ?? this.active);
  }
}
