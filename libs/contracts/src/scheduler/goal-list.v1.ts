import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
} from 'class-validator';
import { requestContract } from '../common/contract.js';
import { Nullable } from '../common/payload-bounds.js';
import { ListPageV1Request } from '../common/list-page.v1.js';
import { IsNested } from '../common/validation.js';
import { GOAL_STATUSES, GoalBudgetV1, GoalUsageV1, TeamMemberV1, type GoalStatus } from './goals.v1.js';

/** A goal as a list shows it: who works on it and what it has cost, without its tasks or conclusion. @since 1 */
export class GoalSummaryV1 {
  @IsUUID()
  id: string;

  @IsString()
  goal: string;

  @IsIn(GOAL_STATUSES)
  status: GoalStatus;

  @IsOptional()
  @IsString()
  @Nullable()
  statusReason: string | null;

  /** The team, leader first, each member with why it was chosen. */
  @IsNested(() => TeamMemberV1, { each: true })
  team: TeamMemberV1[];

  @IsNested(() => GoalUsageV1)
  usage: GoalUsageV1;

  @IsNested(() => GoalBudgetV1)
  budget: GoalBudgetV1;

  @IsOptional()
  @IsUUID()
  @Nullable()
  groupId: string | null;

  /** The goal whose task formed this sub-team; null for a goal a person or client submitted. */
  @IsOptional()
  @IsUUID()
  @Nullable()
  parentGoalId: string | null;

  @IsInt()
  depth: number;

  @IsDateString()
  createdAt: string;

  @IsDateString()
  updatedAt: string;

  @IsOptional()
  @IsDateString()
  @Nullable()
  endedAt: string | null;
}

/** @since 1 */
export class ListGoalsV1Request extends ListPageV1Request {
  /** Only goals in one of these statuses (all statuses when absent). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(GOAL_STATUSES.length)
  @IsIn(GOAL_STATUSES, { each: true })
  status?: GoalStatus[];

  /** Only the sub-goals of this goal. */
  @IsOptional()
  @IsUUID()
  parentGoalId?: string;

  /** Only goals that are not sub-goals (what a person submitted). Ignored when `parentGoalId` is set. */
  @IsOptional()
  @IsBoolean()
  topLevelOnly?: boolean;
}

/** @since 1 */
export class ListGoalsV1Response {
  /** Newest first (by submission time, then id). */
  @IsNested(() => GoalSummaryV1, { each: true })
  items: GoalSummaryV1[];

  /** Pass back as `cursor` for the next page; absent on the last page. */
  @IsOptional()
  @IsString()
  nextCursor?: string;
}

export const ListGoalsV1 = requestContract<ListGoalsV1Request, ListGoalsV1Response>({
  subject: 'ioa.scheduler.goal.list.v1',
  owner: 'scheduler',
  request: ListGoalsV1Request,
  response: ListGoalsV1Response,
  summary:
    'Goals newest first, with team, usage and budget; filter by status or parent, page with a cursor. Scoped to ' +
    "the caller's account when Ioa-Principal names a member.",
  since: '1',
});
