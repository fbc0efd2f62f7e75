import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { EventContract } from '@ioa/contracts';
import { outboxMessage, type OutboxMessage } from '../outbox/outbox-message.js';
import { DEFAULT_FLUSH_WAIT_MS, OUTBOX_OPTIONS, type OutboxOptions } from '../outbox/outbox.options.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';

/** Something to do once the transaction has committed (never if it rolls back). */
export type AfterCommit = () => unknown;

/**
 * One database transaction of a use case and what it causes: its events go to the outbox (written here, in the
 * transaction, so they exist if and only if the change commits), and follow-ups that talk to other services (close
 * a group, deliver a task) wait for the commit with `afterCommit` — a network call inside the transaction would
 * hold its row locks while another service answers.
 */
export class UnitOfWork {
  private readonly hooks: AfterCommit[] = [];
  private events = 0;

  constructor(
    /** The transaction's entity manager: every read and write of the unit goes through it. */
    readonly manager: EntityManager,
    private readonly outbox: OutboxRepository,
  ) {}

  /**
   * Writes one event to the outbox. `messageId` names the fact (JetStream drops a re-publish); an addressed
   * contract needs `subject`, its recipient's concrete subject (`subjectFor`).
   */
  async publish<T>(
    contract: EventContract<T>,
    payload: T,
    options: { messageId: string; subject?: string },
  ): Promise<void> {
    await this.enqueue(outboxMessage(contract, payload, options.messageId, { subject: options.subject }));
  }

  /** Writes events built with `outboxMessage` to the outbox, in this order. */
  async enqueue(...messages: OutboxMessage[]): Promise<void> {
    await this.outbox.enqueue(this.manager, messages);
    this.events += messages.length;
  }

  /** Runs `hook` after the transaction commits and its events were flushed. Errors are logged, never thrown. */
  afterCommit(hook: AfterCommit): void {
    this.hooks.push(hook);
  }

  /** How many events this unit wrote so far. */
  get eventCount(): number {
    return this.events;
  }

  /** @internal the runner's part, after commit. */
  takeHooks(): AfterCommit[] {
    return this.hooks.splice(0);
  }
}

/**
 * Runs units of work. The one flush policy of every service:
 *
 * **After a unit that wrote events commits, `run` resolves only once those events are published — or after
 * `flushWaitMs` (`OutboxOptions`), whichever comes first; whatever is still unpublished then is the relay's timer's
 * to retry.** So in the normal case a reply follows the events it caused (a caller that hears "registered" can rely
 * on `registered` having gone out, a member whose move was accepted sees the turn granted), while a broker outage
 * delays a reply by at most `flushWaitMs` instead of hanging it, and loses nothing: the rows stay in the outbox.
 *
 * The `afterCommit` follow-ups run next, in the order they were queued; one that fails is logged and the others
 * still run (each is also a sweep of its service, so a lost one is only delayed).
 */
@Injectable()
export class Transactions {
  private readonly logger = new Logger(Transactions.name);
  private readonly flushWaitMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxRepository,
    private readonly relay: OutboxRelay,
    @Inject(OUTBOX_OPTIONS) options: OutboxOptions,
  ) {
    this.flushWaitMs = options.flushWaitMs ?? DEFAULT_FLUSH_WAIT_MS;
  }

  /** Runs `work` in one READ COMMITTED transaction; see the class comment for what happens after the commit. */
  async run<T>(work: (unit: UnitOfWork) => Promise<T>): Promise<T> {
    let unit: UnitOfWork | undefined;
    const result = await this.dataSource.transaction(async (manager) => {
      unit = new UnitOfWork(manager, this.outbox);
      return work(unit);
    });
    if (!unit) return result;
    if (unit.eventCount > 0) await this.flushWithin(this.flushWaitMs);
    for (const hook of unit.takeHooks()) {
      try {
        await hook();
      } catch (error) {
        this.logger.error(`A follow-up after commit failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return result;
  }

  /** The data source's own manager, for reads outside a unit of work (no lock, no events). */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /** The relay's flush never rejects; it is only raced against the bound (the timer is cleared when it wins). */
  private async flushWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    });
    try {
      await Promise.race([this.relay.flush(), bound]);
    } finally {
      clearTimeout(timer);
    }
  }
}
