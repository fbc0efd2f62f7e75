import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ALL_CONTRACTS, type EventContract } from '@ioa/contracts';
import { EventBus } from '@ioa/messaging';
import { chatConfig, type ChatConfig } from '../chat.config.js';
import type { OutboxEventEntity } from './outbox-event.entity.js';
import { OutboxRepository } from './outbox.repository.js';

const BATCH_SIZE = 200;

const EVENT_CONTRACTS = new Map<string, EventContract<unknown>>(
  ALL_CONTRACTS.filter((contract) => contract.kind === 'event').map((contract) => [contract.subject, contract]),
);

/**
 * Publishes outbox rows through the `EventBus`, oldest first, and deletes them once JetStream has acknowledged them.
 * The conversation service calls `flush()` right after its transaction commits, so a member's reply arrives after
 * the events it caused are out; a timer picks up whatever a failed publish or a crashed replica left behind.
 *
 * A batch is claimed under a row lock (one replica publishes it), published pipelined — every publish is started
 * in id order on the one connection (NATS keeps the order of a connection's messages) and the acknowledgements
 * are awaited together — and deleted in the same transaction. Only the acknowledged prefix is deleted; the rest is
 * sent again later, and the message ids make JetStream drop the repeats.
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
    @Inject(chatConfig.KEY) private readonly config: ChatConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.flush(), this.config.outboxRetryMs);
    this.timer.unref();
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
        this.reportFailure('publish chat events', error);
      } finally {
        if (this.active === pass) this.active = undefined;
      }
    });
    this.queued = pass;
    return pass;
  }

  private async drain(): Promise<void> {
    while (!this.closed) {
      let failure: { subject: string; error: unknown } | undefined;
      const claimed = await this.outbox.claimOldest(BATCH_SIZE, async (rows) => {
        const outcomes = await Promise.allSettled(rows.map((row) => this.publish(row)));
        const failedAt = outcomes.findIndex((outcome) => outcome.status === 'rejected');
        if (failedAt === -1) return rows.length;
        failure = { subject: rows[failedAt].subject, error: (outcomes[failedAt] as PromiseRejectedResult).reason };
        // Only the acknowledged prefix counts as published: later events wait for the failed one, keeping the order.
        return failedAt;
      });
      if (failure) {
        this.reportFailure(`publish ${failure.subject}`, failure.error);
        return;
      }
      if (this.failing && claimed > 0) {
        this.failing = false;
        this.logger.log('Publishing chat events again');
      }
      if (claimed < BATCH_SIZE) return;
    }
  }

  /** Starts the publish at once (so a batch goes out pipelined, in order, on the one connection). */
  private publish(row: OutboxEventEntity): Promise<void> {
    const contract = EVENT_CONTRACTS.get(row.subject);
    if (!contract) {
      // Only a rolled-back deployment could leave an event this version does not know; it can never be sent.
      this.logger.error(`Dropping outbox row ${row.id}: no event contract for ${row.subject}`);
      return Promise.resolve();
    }
    return this.events.publish(contract, row.payload, { messageId: row.messageId });
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
