import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ALL_CONTRACTS, type EventContract } from '@ioa/contracts';
import { EventBus } from '@ioa/messaging';
import type { OutboxEventEntity } from './outbox-event.entity.js';
import { OutboxRepository } from './outbox.repository.js';

const RECOVERY_BATCH = 100;
/** How often each replica looks for rows nobody published (a failed publish, a crashed replica). */
export const OUTBOX_RECOVERY_INTERVAL_MS = 2000;
/** A row this old was not published by the replica that wrote it: after commit, publishing takes milliseconds. */
export const OUTBOX_ORPHAN_AGE_SECONDS = 10;

const EVENT_CONTRACTS = new Map<string, EventContract<unknown>>(
  ALL_CONTRACTS.filter((contract) => contract.kind === 'event').map((contract) => [contract.subject, contract]),
);

/**
 * Publishes outbox rows through the `EventBus` and deletes them once JetStream has acknowledged them.
 *
 * The replica that committed a change publishes its own rows right away (`publishCommitted`, before the reply), so
 * replicas do not publish each other's events. A timer recovers orphans — rows older than a grace period, left by a
 * failed publish or a crashed replica. Delivery is at least once: a row published but not yet deleted when its
 * replica died is published again, with the same message id, which JetStream drops within its duplicate window.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private timer?: NodeJS.Timeout;
  private recovering?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  private failing = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly events: EventBus,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.recoverOrphans(), OUTBOX_RECOVERY_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Publishes rows whose transaction has committed, then deletes them. Never rejects: whatever fails stays in the
   * outbox and is recovered later.
   */
  publishCommitted(rows: OutboxEventEntity[]): Promise<void> {
    if (rows.length === 0 || this.closed) return Promise.resolve();
    const work: Promise<void> = this.publishAndRemove(rows).then(
      () => undefined,
      () => undefined,
    );
    void work.finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
    return work;
  }

  /** One recovery pass (the timer runs them; exposed for tests and for a manual drain). */
  recoverOrphans(): Promise<void> {
    this.recovering ??= this.recover().finally(() => {
      this.recovering = undefined;
    });
    return this.recovering;
  }

  private async recover(): Promise<void> {
    while (!this.closed) {
      let rows: OutboxEventEntity[];
      try {
        rows = await this.outbox.orphans(OUTBOX_ORPHAN_AGE_SECONDS, RECOVERY_BATCH);
      } catch (error) {
        this.reportFailure('read the outbox', error);
        return;
      }
      if (rows.length === 0) return;
      const complete = await this.publishAndRemove(rows);
      if (!complete || rows.length < RECOVERY_BATCH) return;
    }
  }

  /** Publishes in row order and deletes what was acknowledged; true when every row went out. */
  private async publishAndRemove(rows: OutboxEventEntity[]): Promise<boolean> {
    // One connection sends in call order, so publishing the rows at once keeps their order while paying one
    // acknowledgement round trip instead of one per event.
    const outcomes = await Promise.allSettled(rows.map((row) => this.publish(row)));
    const firstFailure = outcomes.findIndex((outcome) => outcome.status === 'rejected');
    if (firstFailure !== -1) {
      this.reportFailure(
        `publish ${rows[firstFailure].subject}`,
        (outcomes[firstFailure] as PromiseRejectedResult).reason,
      );
    }
    // Everything from the first failure on is sent again later, in order; the stream drops what it already has.
    // After such a partial failure a newer event can follow an older one, which is why events carry `revision`
    // (cards) and `lastSeenAt` (presence): consumers keep the newest.
    const published = firstFailure === -1 ? rows : rows.slice(0, firstFailure);
    try {
      await this.outbox.remove(published.map((row) => row.id));
    } catch (error) {
      this.reportFailure('clear published outbox rows', error);
      return false;
    }
    if (firstFailure !== -1) return false;
    if (this.failing) {
      this.failing = false;
      this.logger.log('Publishing registry events again');
    }
    return true;
  }

  private async publish(row: OutboxEventEntity): Promise<void> {
    const contract = EVENT_CONTRACTS.get(row.subject);
    if (!contract) {
      // Only a rolled-back deployment could leave an event this version does not know; it can never be sent.
      this.logger.error(`Dropping outbox row ${row.id}: no event contract for ${row.subject}`);
      return;
    }
    await this.events.publish(contract, row.payload, { messageId: row.messageId });
  }

  /** Logs the first failure of a streak only: a broker outage must not flood the log. */
  private reportFailure(action: string, error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(`Could not ${action}, will retry: ${error instanceof Error ? error.message : String(error)}`);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.allSettled([this.recovering, ...this.inFlight]);
  }
}
