import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { EventContract } from '@ioa/contracts';
import { outboxMessage, OutboxRelay, OutboxRepository } from '@ioa/database';
import { GoalEntity } from '../goals/goal.entity.js';

type AfterCommit = () => unknown;

/**
 * One database transaction of a use case, with what must happen once it has committed: events go to the outbox
 * (written here, in the transaction) and follow-ups that talk to other services (close a group, deliver a task)
 * are queued with `afterCommit`, because a network call inside a transaction would hold the goal's lock while
 * waiting on another service.
 */
export class UnitOfWork {
  readonly afterCommitHooks: AfterCommit[] = [];
  wroteEvents = false;

  constructor(
    readonly manager: EntityManager,
    private readonly outbox: OutboxRepository,
  ) {}

  /** The goal row, locked until the transaction ends: every change of a goal (and its tasks) happens under it. */
  async lockGoal(goalId: string): Promise<GoalEntity | null> {
    return this.manager
      .getRepository(GoalEntity)
      .createQueryBuilder('goal')
      .setLock('pessimistic_write')
      .where('goal.id = :goalId', { goalId })
      .getOne();
  }

  /**
   * Writes an event to the outbox; it is published after commit. An addressed contract needs `subject`, the
   * recipient's concrete subject (`subjectFor`).
   */
  async publish<T>(
    contract: EventContract<T>,
    payload: T,
    options: { messageId: string; subject?: string },
  ): Promise<void> {
    await this.outbox.enqueue(this.manager, [
      outboxMessage(contract, payload, options.messageId, { subject: options.subject }),
    ]);
    this.wroteEvents = true;
  }

  /** Runs `hook` after the transaction commits (never if it rolls back). Hooks must not throw; errors are logged. */
  afterCommit(hook: AfterCommit): void {
    this.afterCommitHooks.push(hook);
  }
}

@Injectable()
export class Transactions {
  private readonly logger = new Logger(Transactions.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxRepository,
    private readonly relay: OutboxRelay,
  ) {}

  async run<T>(work: (unit: UnitOfWork) => Promise<T>): Promise<T> {
    let unit: UnitOfWork | undefined;
    const result = await this.dataSource.transaction(async (manager) => {
      unit = new UnitOfWork(manager, this.outbox);
      return work(unit);
    });
    // Not awaited: the follow-ups need not wait for the events, and a failed publish is retried by the relay.
    if (unit?.wroteEvents) void this.relay.flush();
    for (const hook of unit?.afterCommitHooks ?? []) {
      try {
        await Promise.resolve(hook());
      } catch (error) {
        this.logger.error(`A follow-up after commit failed: ${(error as Error)?.message ?? error}`);
      }
    }
    return result;
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
