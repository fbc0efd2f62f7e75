import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventBus } from '@ioa/messaging';
import type { EventContract } from '@ioa/contracts';
import { OutboxEventEntity } from './outbox-event.entity.js';

const BATCH_SIZE = 200;

/**
 * Publishes outbox rows in id order, then deletes them. A flush is asked for after every commit that wrote events,
 * and the sweeper asks again periodically (rows left by a crash or a broker outage). Flushes never overlap within a
 * process; a JetStream re-publish (after a crash, or by another replica) carries the same message id, so the stream
 * drops it.
 */
@Injectable()
export class OutboxRelay implements OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventBus,
  ) {}

  /** Starts a flush (or schedules one more after the running one), without waiting for it. */
  flushSoon(): void {
    void this.flush();
  }

  /** Publishes everything in the outbox; resolves when the outbox was empty at some point after the call. */
  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while (!this.stopped && (await this.publishBatch()) === BATCH_SIZE) {
            // a full batch: there may be more
          }
        } while (this.again && !this.stopped);
      } catch (error) {
        this.logger.warn(`Outbox relay paused, will retry: ${(error as Error)?.message ?? error}`);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async publishBatch(): Promise<number> {
    // No transaction is held while publishing (a network call must not hold the database). Two replicas may
    // therefore publish the same row twice: JetStream drops the second copy by message id, and the core events
    // (event-log tail, task cancellations) are idempotent for their receivers.
    const repository = this.dataSource.getRepository(OutboxEventEntity);
    const rows = await repository.find({ order: { id: 'ASC' }, take: BATCH_SIZE });
    const published: string[] = [];
    try {
      for (const row of rows) {
        const contract = { subject: row.subject, stream: row.stream ?? undefined } as EventContract<unknown>;
        await this.events.publish(contract, row.payload, { messageId: row.messageId });
        published.push(row.id);
      }
    } finally {
      if (published.length > 0) await repository.delete(published);
    }
    return rows.length;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
