import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, QueryDeepPartialEntity, Repository } from 'typeorm';
import type { AgentStatus } from '@ioa/contracts';
import { Transactions, type OutboxMessage, type UnitOfWork } from '@ioa/database';
import { AgentEntity } from './agent.entity.js';

export interface AgentListFilter {
  status?: AgentStatus;
  owner?: string;
  ids?: string[];
  limit: number;
  offset: number;
}

/**
 * TypeORM's deep-partial column type cannot express jsonb members typed `unknown` (the card's metadata), although it
 * writes them as JSON; this is the one place that says so.
 */
function columns(values: Partial<AgentEntity>): QueryDeepPartialEntity<AgentEntity> {
  return values as QueryDeepPartialEntity<AgentEntity>;
}

/** An agent the sweeper just marked offline. */
export type SilentAgent = Pick<AgentEntity, 'id' | 'name' | 'lastSeenAt'>;

/**
 * The registry's writes inside one unit of work (`Transactions`, shared with the other services). Every read here
 * locks the row (`FOR UPDATE`), so concurrent registrations, updates, heartbeats and sweeps of one agent run one
 * after the other, and the events written with `enqueue` commit (or roll back) with the change they report.
 */
export class AgentsTransaction {
  constructor(private readonly unit: UnitOfWork) {}

  private get manager(): EntityManager {
    return this.unit.manager;
  }

  /** The database's clock at transaction start: all replicas and the presence sweeper share it. */
  async now(): Promise<Date> {
    const [row] = await this.manager.query<Array<{ now: Date }>>('SELECT now() AS now');
    return row.now;
  }

  lockById(id: string): Promise<AgentEntity | null> {
    return this.manager.findOne(AgentEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  lockByName(name: string): Promise<AgentEntity | null> {
    return this.manager.findOne(AgentEntity, { where: { name }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Inserts the agent unless its name is taken, and says whether it did. `ON CONFLICT DO NOTHING` waits for a
   * concurrent registration of the same name instead of failing with a unique violation, so the caller can read
   * the winner's row and carry on.
   */
  async insertIfNameFree(agent: AgentEntity): Promise<boolean> {
    const result = await this.manager
      .createQueryBuilder()
      .insert()
      .into(AgentEntity)
      .values(columns(agent))
      .orIgnore()
      .returning(['id'])
      .updateEntity(false)
      .execute();
    return (result.raw as unknown[]).length === 1;
  }

  /**
   * How many agents an owner has, counted under a transaction-scoped advisory lock on the owner, so two racing
   * registrations of one owner count each other (the quota cannot be overshot by sending in parallel).
   */
  async lockAndCountOwned(owner: string): Promise<number> {
    await this.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry.owner-quota:${owner}`]);
    return this.manager.count(AgentEntity, { where: { owner } });
  }

  async update(id: string, changes: Partial<Omit<AgentEntity, 'id'>>): Promise<void> {
    await this.manager.update(AgentEntity, { id }, columns(changes));
  }

  async delete(id: string): Promise<void> {
    await this.manager.delete(AgentEntity, { id });
  }

  /**
   * Marks online agents silent since before `now - ttl` offline, in one statement, and returns them. Rows locked by
   * a concurrent heartbeat or by another replica's sweep are skipped (`SKIP LOCKED`), so replicas never report the
   * same agent twice and never wait on each other.
   */
  async markSilentAgentsOffline(ttlSeconds: number, limit: number): Promise<SilentAgent[]> {
    const table = this.manager.getRepository(AgentEntity).metadata.tablePath;
    const result = await this.manager
      .createQueryBuilder()
      .update(AgentEntity)
      .set({ status: 'offline' })
      .where(
        `id IN (SELECT "id" FROM ${table} WHERE "status" = 'online' AND "last_seen_at" < now() - make_interval(secs => :ttl) ` +
          `ORDER BY "last_seen_at" LIMIT :limit FOR UPDATE SKIP LOCKED)`,
        { ttl: ttlSeconds, limit },
      )
      .andWhere(`"status" = 'online'`)
      .returning('"id", "name", "last_seen_at"')
      .updateEntity(false)
      .execute();
    const rows = result.raw as Array<{ id: string; name: string; last_seen_at: Date }>;
    return rows.map((row) => ({ id: row.id, name: row.name, lastSeenAt: row.last_seen_at }));
  }

  /** Records events in the outbox, in this transaction; they are published after it commits. */
  enqueue(...messages: OutboxMessage[]): Promise<void> {
    return this.unit.enqueue(...messages);
  }
}

@Injectable()
export class AgentsRepository {
  constructor(
    @InjectRepository(AgentEntity) private readonly agents: Repository<AgentEntity>,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Runs `work` in one READ COMMITTED unit of work (row locks give the ordering we need); it resolves once the
   * events it enqueued are published (within the unit of work's bound), so a caller's reply follows its events.
   */
  transaction<T>(work: (transaction: AgentsTransaction) => Promise<T>): Promise<T> {
    return this.transactions.run((unit) => work(new AgentsTransaction(unit)));
  }

  findById(id: string): Promise<AgentEntity | null> {
    return this.agents.findOneBy({ id });
  }

  findByName(name: string): Promise<AgentEntity | null> {
    return this.agents.findOneBy({ name });
  }

  /**
   * The heartbeat of an agent that is online already, the common case: one statement, no transaction, no event.
   * False when the agent is unknown or offline (then the caller takes the locking path).
   */
  async touchIfOnline(id: string): Promise<boolean> {
    const result = await this.agents
      .createQueryBuilder()
      .update(AgentEntity)
      .set({ lastSeenAt: () => 'now()' })
      .where('id = :id AND status = :status', { id, status: 'online' })
      .updateEntity(false)
      .execute();
    return result.affected === 1;
  }

  /** Newest registration first; `total` counts every match across pages. */
  async list(filter: AgentListFilter): Promise<{ items: AgentEntity[]; total: number }> {
    if (filter.ids?.length === 0) return { items: [], total: 0 };
    const query = this.agents.createQueryBuilder('agent');
    if (filter.status) query.andWhere('agent.status = :status', { status: filter.status });
    if (filter.owner) query.andWhere('agent.owner = :owner', { owner: filter.owner });
    if (filter.ids) query.andWhere('agent.id IN (:...ids)', { ids: filter.ids });
    const [items, total] = await query
      .orderBy('agent.registeredAt', 'DESC')
      .addOrderBy('agent.id', 'DESC')
      .offset(filter.offset)
      .limit(filter.limit)
      .getManyAndCount();
    return { items, total };
  }
}
