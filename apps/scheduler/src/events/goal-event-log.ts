import { Injectable } from '@nestjs/common';
import { MoreThan } from 'typeorm';
import { GoalEventAppendedV1, type GoalEventType, type GoalEventV1 } from '@ioa/contracts';
import { GoalEntity } from '../goals/goal.entity.js';
import { type UnitOfWork, Transactions } from '@ioa/database';
import { GoalEventEntity } from './goal-event.entity.js';

export function toGoalEventV1(entity: GoalEventEntity): GoalEventV1 {
  return {
    goalId: entity.goalId,
    seq: entity.seq,
    type: entity.type,
    data: entity.data,
    at: entity.at.toISOString(),
  };
}

/**
 * Each goal's ordered event log. Entries are appended in the transaction of the change they record, with the goal's
 * row locked, so `seq` is 1, 2, 3… without gaps or duplicates however many replicas write; the live tail
 * (`GoalEventAppendedV1`) goes out through the outbox after commit.
 */
@Injectable()
export class GoalEventLog {
  constructor(private readonly transactions: Transactions) {}

  /**
   * Appends an entry. The goal must have been locked by `unit.lockGoal`. With a `sourceKey` (another service's event
   * being recorded), a second append of the same key is ignored: returns false, so the caller skips the effects of
   * a redelivered event.
   */
  async append(
    unit: UnitOfWork,
    goal: GoalEntity,
    type: GoalEventType,
    data: object,
    sourceKey: string | null = null,
  ): Promise<boolean> {
    if (sourceKey !== null) {
      const seen = await unit.manager.existsBy(GoalEventEntity, { goalId: goal.id, sourceKey });
      if (seen) return false;
    }
    goal.lastEventSeq += 1;
    const entity = unit.manager.create(GoalEventEntity, {
      goalId: goal.id,
      seq: goal.lastEventSeq,
      type,
      // The wire form of `data` (dates as strings, no undefined), as readers of the log will see it.
      data: JSON.parse(JSON.stringify(data)) as Record<string, unknown>,
      at: new Date(),
      sourceKey,
    });
    // (jsonb of an open shape: TypeORM's deep-partial typing cannot follow `Record<string, unknown>`.)
    await unit.manager.insert(GoalEventEntity, { ...entity, data: entity.data as never });
    await unit.manager.update(GoalEntity, { id: goal.id }, { lastEventSeq: goal.lastEventSeq });
    const event = toGoalEventV1(entity);
    await unit.publish(GoalEventAppendedV1, { event }, { messageId: `${goal.id}:event:${event.seq}` });
    return true;
  }

  async list(goalId: string, afterSeq: number, limit: number): Promise<GoalEventV1[]> {
    const entities = await this.transactions.manager.find(GoalEventEntity, {
      where: { goalId, seq: MoreThan(afterSeq) },
      order: { seq: 'ASC' },
      take: limit,
    });
    return entities.map(toGoalEventV1);
  }
}
