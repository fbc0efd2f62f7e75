import type { UnitOfWork } from '@ioa/database';
import { GoalEntity } from './goal.entity.js';

/**
 * The goal row, locked (`FOR UPDATE`) until the unit of work ends: every change of a goal and its tasks happens
 * under it, so changes of one goal run one after the other while different goals proceed in parallel.
 */
export function lockGoal(unit: UnitOfWork, goalId: string): Promise<GoalEntity | null> {
  return unit.manager
    .getRepository(GoalEntity)
    .createQueryBuilder('goal')
    .setLock('pessimistic_write')
    .where('goal.id = :goalId', { goalId })
    .getOne();
}
