import {
  ArrayMaxSize,
  IsArray,
  IsDateString,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
} from 'class-validator';
import { eventContract, requestContract } from '../common/contract.js';
import { IsIntegerIn, IsNested, IsText } from '../common/validation.js';
import { ModelUsageV1 } from '../common/usage.v1.js';
import { SCHEDULER_EVENTS_STREAM, TaskV1 } from './tasks.v1.js';
import { Nullable } from '../common/payload-bounds.js';

export const GOAL_STATUSES = [
  'submitted',
  'forming_team',
  'working',
  'input_required',
  'completed',
  'failed',
  'canceled',
] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

/** Statuses after which nothing more happens to a goal, except a `completed` one re-opening with a follow-up. */
export const ENDED_GOAL_STATUSES: readonly GoalStatus[] = ['completed', 'failed', 'canceled'];
/** Statuses of a goal whose team is at work (a group exists and may still talk). */
export const ACTIVE_GOAL_STATUSES: readonly GoalStatus[] = ['working', 'input_required'];
/** Statuses of a goal whose team is not formed yet. */
export const FORMING_GOAL_STATUSES: readonly GoalStatus[] = ['submitted', 'forming_team'];

/** Whether a goal in `status` has ended (see `ENDED_GOAL_STATUSES`). */
export function isEndedGoalStatus(status: GoalStatus): boolean {
  return ENDED_GOAL_STATUSES.includes(status);
}

/** Whether the team of a goal in `status` is at work (see `ACTIVE_GOAL_STATUSES`). */
export function isActiveGoalStatus(status: GoalStatus): boolean {
  return ACTIVE_GOAL_STATUSES.includes(status);
}

/** Whether a goal in `status` is still forming its team (see `FORMING_GOAL_STATUSES`). */
export function isFormingGoalStatus(status: GoalStatus): boolean {
  return FORMING_GOAL_STATUSES.includes(status);
}

/** @since 1 */
export class GoalBudgetV1 {
  @IsOptional()
  @IsIntegerIn(1)
  tokens?: number;

  @IsOptional()
  @IsIntegerIn(1, 86400)
  seconds?: number;
}

/** @since 1 */
export class TeamMemberV1 {
  @IsUUID()
  agentId: string;

  @IsString()
  name: string;

  @IsString()
  reason: string;
}

/** @since 1 */
export class GoalUsageV1 extends ModelUsageV1 {
  /** Wall-clock seconds since submission (until the goal ended). */
  @IsInt()
  seconds: number = 0;
}

/** @since 1 */
export class GoalV1 {
  @IsUUID()
  id: string;

  @IsString()
  goal: string;

  @IsIn(GOAL_STATUSES)
  status: GoalStatus;

  @IsNested(() => TeamMemberV1, { each: true })
  team: TeamMemberV1[];

  @IsOptional()
  @IsUUID()
  @Nullable()
  groupId: string | null;

  @IsNested(() => TaskV1, { each: true })
  tasks: TaskV1[];

  @IsOptional()
  @IsString()
  @Nullable()
  conclusion: string | null;

  /** Why the goal failed or was concluded early (budget, turn limit), when it was. */
  @IsOptional()
  @IsString()
  @Nullable()
  statusReason: string | null;

  @IsNested(() => GoalUsageV1)
  usage: GoalUsageV1;

  @IsNested(() => GoalBudgetV1)
  budget: GoalBudgetV1;

  @IsInt()
  maxTurns: number;

  @IsInt()
  depth: number;

  @IsInt()
  maxDepth: number;

  @IsOptional()
  @IsUUID()
  @Nullable()
  parentTaskId: string | null;

  @IsDateString()
  createdAt: string;

  @IsDateString()
  updatedAt: string;

  @IsOptional()
  @IsDateString()
  @Nullable()
  endedAt: string | null;
}

// ---------------------------------------------------------------------------------------------------------------

/** @since 1 */
export class SubmitGoalV1Request {
  @IsText(8000)
  goal: string;

  /** Agent names or ids: skips autonomous team formation. The first one leads. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8)
  @IsText(64, { each: true })
  members?: string[];

  @IsOptional()
  @IsIntegerIn(2, 200)
  maxTurns: number = 12;

  /** How deep sub-teams may nest (0 = no sub-teams). */
  @IsOptional()
  @IsIntegerIn(0, 5)
  maxDepth: number = 1;

  @IsOptional()
  @IsNested(() => GoalBudgetV1)
  budget: GoalBudgetV1 = {};

  /** Set by a task owner forming a sub-team: the child goal's conclusion becomes this task's result. */
  @IsOptional()
  @IsUUID()
  parentTaskId?: string;
}

export const SubmitGoalV1 = requestContract<SubmitGoalV1Request, GoalV1>({
  subject: 'ioa.scheduler.goal.submit.v1',
  owner: 'scheduler',
  request: SubmitGoalV1Request,
  response: GoalV1,
  summary: 'Submit a goal; a team forms (or the named members are used) and works on it asynchronously.',
  since: '1',
});

/** @since 1 */
export class GoalRefV1Request {
  @IsUUID()
  goalId: string;
}

export const GetGoalV1 = requestContract<GoalRefV1Request, GoalV1>({
  subject: 'ioa.scheduler.goal.get.v1',
  owner: 'scheduler',
  request: GoalRefV1Request,
  response: GoalV1,
  summary: 'A goal with its status, team, tasks, conclusion and usage.',
  since: '1',
});

/** @since 1 */
export class CancelGoalV1Request extends GoalRefV1Request {
  @IsOptional()
  @IsText(2000)
  reason: string = 'Canceled by the user';
}

export const CancelGoalV1 = requestContract<CancelGoalV1Request, GoalV1>({
  subject: 'ioa.scheduler.goal.cancel.v1',
  owner: 'scheduler',
  request: CancelGoalV1Request,
  response: GoalV1,
  summary: 'Cancel a goal: its group closes and its open tasks (and sub-goals) are canceled.',
  since: '1',
});

/** @since 1 */
export class PostGoalMessageV1Request extends GoalRefV1Request {
  @IsText(20000)
  content: string;

  @IsOptional()
  @IsText(100)
  author: string = 'user';
}

export const PostGoalMessageV1 = requestContract<PostGoalMessageV1Request, GoalV1>({
  subject: 'ioa.scheduler.goal.message.v1',
  owner: 'scheduler',
  request: PostGoalMessageV1Request,
  response: GoalV1,
  summary: "A person joins the goal's conversation; a concluded goal re-opens.",
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// the goal's event log (what GET /v1/goals/:id/events streams)

export const GOAL_EVENT_TYPES = ['status', 'team', 'message', 'task', 'group'] as const;
export type GoalEventType = (typeof GOAL_EVENT_TYPES)[number];

/** One entry of a goal's ordered, persisted event log. @since 1 */
export class GoalEventV1 {
  @IsUUID()
  goalId: string;

  /** 1, 2, 3… per goal: the SSE event id, used to resume with Last-Event-ID. */
  @IsInt()
  seq: number;

  @IsIn(GOAL_EVENT_TYPES)
  type: GoalEventType;

  /** The changed thing: a GoalV1 summary, a team, a ChatMessageV1, a TaskV1 or a GroupV1. */
  @IsObject()
  data: Record<string, unknown>;

  @IsDateString()
  at: string;
}

/** @since 1 */
export class ListGoalEventsV1Request extends GoalRefV1Request {
  @IsOptional()
  @IsIntegerIn(0)
  afterSeq: number = 0;

  @IsOptional()
  @IsIntegerIn(1, 1000)
  limit: number = 200;
}

/** @since 1 */
export class ListGoalEventsV1Response {
  @IsNested(() => GoalEventV1, { each: true })
  items: GoalEventV1[];

  @IsInt()
  lastSeq: number;
}

export const ListGoalEventsV1 = requestContract<ListGoalEventsV1Request, ListGoalEventsV1Response>({
  subject: 'ioa.scheduler.goal.events.list.v1',
  owner: 'scheduler',
  request: ListGoalEventsV1Request,
  response: ListGoalEventsV1Response,
  summary: "A page of a goal's event log after a given seq.",
  since: '1',
});

/** @since 1 */
export class GoalEventAppendedV1Event {
  @IsNested(() => GoalEventV1)
  event: GoalEventV1;
}

export const GoalEventAppendedV1 = eventContract<GoalEventAppendedV1Event>({
  subject: 'ioa.scheduler.goal.event-appended.v1',
  owner: 'scheduler',
  payload: GoalEventAppendedV1Event,
  summary: "Live tail of goals' event logs (core NATS; the log itself is the durable copy).",
  since: '1',
});

/** @since 1 */
export class GoalStatusChangedV1Event {
  @IsNested(() => GoalV1)
  goal: GoalV1;
}

export const GoalStatusChangedV1 = eventContract<GoalStatusChangedV1Event>({
  subject: 'ioa.scheduler.goal.status-changed.v1',
  owner: 'scheduler',
  payload: GoalStatusChangedV1Event,
  summary: "A goal's status changed.",
  since: '1',
  stream: SCHEDULER_EVENTS_STREAM,
});
