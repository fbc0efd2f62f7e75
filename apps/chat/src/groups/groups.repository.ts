import { Injectable } from '@nestjs/common';
import { DataSource, LessThanOrEqual, MoreThan, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { Transactions, type OutboxMessage, type UnitOfWork } from '@ioa/database';
import { GroupMemberEntity } from './group-member.entity.js';
import { GroupTaskEntity } from './group-task.entity.js';
import { GroupEntity } from './group.entity.js';
import type { GroupRecord } from './group.mapper.js';
import { MessageEntity } from './message.entity.js';

/** TypeORM's deep-partial type cannot express the jsonb arrays it writes as JSON; this is the one place that says so. */
function columns<T>(values: Partial<T>): QueryDeepPartialEntity<T> {
  return values as QueryDeepPartialEntity<T>;
}

/** A group with its members (round-robin order) and its task ledger (assignment order), read with `manager`. */
async function readRecord(manager: EntityManager, group: GroupEntity): Promise<GroupRecord> {
  const [members, tasks] = await Promise.all([
    manager.find(GroupMemberEntity, { where: { groupId: group.id }, order: { position: 'ASC' } }),
    manager.find(GroupTaskEntity, {
      where: { groupId: group.id },
      order: { messageSeq: 'ASC', ordinal: 'ASC' },
    }),
  ]);
  return { group, members, tasks };
}

/**
 * The chat's writes inside one unit of work (`Transactions`, shared with the other services). A transition starts by
 * locking its group row (`FOR UPDATE`), so the transitions of one group run one after the other — seq numbers stay
 * gap-free and exactly one move wins a turn — while different groups proceed in parallel. Events go to the outbox
 * in the same transaction and are published under the unit of work's flush policy.
 */
export class GroupsTransaction {
  constructor(private readonly unit: UnitOfWork) {}

  get manager(): EntityManager {
    return this.unit.manager;
  }

  lockById(id: string): Promise<GroupEntity | null> {
    return this.manager.findOne(GroupEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * The group whose turn deadline passed longest ago, locked. SKIP LOCKED lets several replicas sweep at once, each
   * taking different groups, and never waits on a group that is busy with a move (its deadline may be moving anyway).
   */
  lockNextOverdue(now: Date): Promise<GroupEntity | null> {
    return this.manager
      .createQueryBuilder(GroupEntity, 'group')
      .where('group.turnDeadline <= :now', { now })
      .orderBy('group.turnDeadline', 'ASC')
      .limit(1)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getOne();
  }

  findByGoal(goalId: string): Promise<GroupEntity | null> {
    return this.manager.findOne(GroupEntity, { where: { goalId } });
  }

  /**
   * Inserts the group unless its goal already has one, and says whether it did. `ON CONFLICT DO NOTHING` waits for a
   * concurrent creation for the same goal instead of failing, so a retried CreateGroupV1 returns the first group.
   */
  async insertGroupIfGoalFree(group: GroupEntity): Promise<boolean> {
    const result = await this.manager
      .createQueryBuilder()
      .insert()
      .into(GroupEntity)
      .values(columns<GroupEntity>(group))
      .orIgnore()
      .returning(['id'])
      .updateEntity(false)
      .execute();
    return (result.raw as unknown[]).length === 1;
  }

  async insertMembers(members: GroupMemberEntity[]): Promise<void> {
    await this.manager.insert(
      GroupMemberEntity,
      members.map((member) => columns<GroupMemberEntity>(member)),
    );
  }

  record(group: GroupEntity): Promise<GroupRecord> {
    return readRecord(this.manager, group);
  }

  async insertMessages(messages: MessageEntity[]): Promise<void> {
    if (messages.length === 0) return;
    await this.manager.insert(
      MessageEntity,
      messages.map((message) => columns<MessageEntity>(message)),
    );
  }

  async insertTasks(tasks: GroupTaskEntity[]): Promise<void> {
    if (tasks.length === 0) return;
    await this.manager.insert(
      GroupTaskEntity,
      tasks.map((task) => columns<GroupTaskEntity>(task)),
    );
  }

  async updateTask(taskId: string, changes: Partial<GroupTaskEntity>): Promise<void> {
    await this.manager.update(GroupTaskEntity, { taskId }, columns<GroupTaskEntity>(changes));
  }

  async updateGroup(id: string, changes: Partial<GroupEntity>): Promise<void> {
    await this.manager.update(GroupEntity, { id }, columns<GroupEntity>(changes));
  }

  /** The latest `limit` messages, oldest first (the window a turn grant carries). */
  async recentMessages(groupId: string, limit: number): Promise<MessageEntity[]> {
    const latest = await this.manager.find(MessageEntity, { where: { groupId }, order: { seq: 'DESC' }, take: limit });
    return latest.reverse();
  }

  enqueue(messages: OutboxMessage[]): Promise<void> {
    return this.unit.enqueue(...messages);
  }
}

@Injectable()
export class GroupsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
  ) {}

  /** One unit of work: it resolves once its events are published (within the unit of work's bound). */
  transaction<T>(work: (transaction: GroupsTransaction) => Promise<T>): Promise<T> {
    return this.transactions.run((unit) => work(new GroupsTransaction(unit)));
  }

  /** A consistent read of a group with its members and ledger (no lock: readers never block moves). */
  async findRecord(id: string): Promise<GroupRecord | null> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const group = await manager.findOne(GroupEntity, { where: { id } });
      if (!group) return null;
      return readRecord(manager, group);
    });
  }

  /** Whether the agent is one of the group's members (an absent group has none). */
  async isMember(groupId: string, agentId: string): Promise<boolean> {
    return this.dataSource.manager.exists(GroupMemberEntity, { where: { groupId, agentId } });
  }

  /** A cheap look before the sweeper opens transactions: is any turn deadline passed? (Partial deadline index, no lock.) */
  async hasOverdueTurn(now: Date): Promise<boolean> {
    return this.dataSource.manager.exists(GroupEntity, { where: { turnDeadline: LessThanOrEqual(now) } });
  }

  async lastSeq(groupId: string): Promise<number | null> {
    const group = await this.dataSource.manager.findOne(GroupEntity, {
      where: { id: groupId },
      select: { lastSeq: true },
    });
    return group?.lastSeq ?? null;
  }

  listMessages(groupId: string, afterSeq: number, limit: number): Promise<MessageEntity[]> {
    return this.dataSource.manager.find(MessageEntity, {
      where: { groupId, seq: MoreThan(afterSeq) },
      order: { seq: 'ASC' },
      take: limit,
    });
  }
}
