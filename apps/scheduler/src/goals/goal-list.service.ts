import { Injectable } from '@nestjs/common';
import {
  decodeListCursor,
  encodeListCursor,
  type GoalSummaryV1,
  type ListGoalsV1Request,
  type ListGoalsV1Response,
  type Principal,
} from '@ioa/contracts';
import { DataSource } from 'typeorm';
import { GoalEntity } from './goal.entity.js';
import { toGoalV1 } from './goal.mapper.js';

/**
 * Which goals a list request may see: `accountId` set means only that account's goals. A member principal is
 * scoped to its account; an admin, and a platform service acting for itself (no principal), see every goal.
 */
export interface GoalListScope {
  accountId?: string;
}

export function goalListScopeOf(principal: Principal | undefined): GoalListScope {
  return principal && principal.role !== 'admin' ? { accountId: principal.accountId } : {};
}

/** The list's view of a goal: the full view's fields without tasks and conclusion, plus its parent goal. */
export function toGoalSummaryV1(goal: GoalEntity, now = new Date()): GoalSummaryV1 {
  const full = toGoalV1(goal, [], now);
  return {
    id: full.id,
    goal: full.goal,
    status: full.status,
    statusReason: full.statusReason,
    team: full.team,
    usage: full.usage,
    budget: full.budget,
    groupId: full.groupId,
    parentGoalId: goal.parentGoalId,
    depth: full.depth,
    createdAt: full.createdAt,
    updatedAt: full.updatedAt,
    endedAt: full.endedAt,
  };
}

/** Reads pages of goals, newest first (read only: no lock, no event). */
@Injectable()
export class GoalListService {
  constructor(private readonly dataSource: DataSource) {}

  async list(request: ListGoalsV1Request, scope: GoalListScope): Promise<ListGoalsV1Response> {
    const after = request.cursor === undefined ? undefined : decodeListCursor(request.cursor);
    const query = this.dataSource.manager
      .createQueryBuilder(GoalEntity, 'goal')
      .orderBy('goal.createdAt', 'DESC')
      .addOrderBy('goal.id', 'DESC')
      // One more than the page: whether it exists says if there is a next page, without a count query.
      .limit(request.limit + 1);
    // The column by name: `account_id` is the account scope the trust work adds to goals.
    if (scope.accountId !== undefined) query.andWhere('goal.account_id = :accountId', { accountId: scope.accountId });
    if (request.status?.length) query.andWhere('goal.status IN (:...statuses)', { statuses: request.status });
    if (request.parentGoalId !== undefined) {
      query.andWhere('goal.parentGoalId = :parentGoalId', { parentGoalId: request.parentGoalId });
    } else if (request.topLevelOnly) {
      query.andWhere('goal.parentGoalId IS NULL');
    }
    if (after) {
      // Row comparison: strictly after the cursor's (created_at, id) in the descending order.
      query.andWhere('(goal.createdAt, goal.id) < (:afterCreatedAt, :afterId)', {
        afterCreatedAt: after.createdAt,
        afterId: after.id,
      });
    }
    const rows = await query.getMany();
    const page = rows.slice(0, request.limit);
    const last = page.at(-1);
    const now = new Date();
    return {
      items: page.map((goal) => toGoalSummaryV1(goal, now)),
      ...(rows.length > request.limit && last ? { nextCursor: encodeListCursor(last) } : {}),
    };
  }
}
