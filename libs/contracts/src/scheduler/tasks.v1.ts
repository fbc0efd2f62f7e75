import { IsDateString, IsIn, IsInt, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { eventContract, requestContract } from '../common/contract.js';
import { IsNested, IsText } from '../common/validation.js';
import { ModelUsageV1 } from '../common/usage.v1.js';
import { Nullable } from '../common/payload-bounds.js';

/** JetStream stream of scheduler facts (task and goal changes). */
export const SCHEDULER_EVENTS_STREAM = 'IOA_SCHEDULER_EVENTS';

/** A2A task states. `completed`, `failed`, `canceled` and `rejected` are terminal. */
export const TASK_STATES = [
  'submitted',
  'working',
  'input-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** States after which a task never changes again. */
export const TERMINAL_TASK_STATES: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];
/** States in which a task is still expected to produce something (every state that is not terminal). */
export const OPEN_TASK_STATES: readonly TaskState[] = ['submitted', 'working', 'input-required'];
/** Terminal states without a result: the task was given up, so nothing should go on working for it. */
export const ABANDONED_TASK_STATES: readonly TaskState[] = ['failed', 'canceled', 'rejected'];

/** Whether a task in `state` is finished for good (see `TERMINAL_TASK_STATES`). */
export function isTerminalTaskState(state: TaskState): boolean {
  return TERMINAL_TASK_STATES.includes(state);
}

/** Whether a task in `state` is still expected to produce something (see `OPEN_TASK_STATES`). */
export function isOpenTaskState(state: TaskState): boolean {
  return OPEN_TASK_STATES.includes(state);
}

/** Whether a task in `state` was given up without a result (see `ABANDONED_TASK_STATES`). */
export function isAbandonedTaskState(state: TaskState): boolean {
  return ABANDONED_TASK_STATES.includes(state);
}

/**
 * The self-contained brief a task's owner works from (IoA's task rewrite): everything needed to do the task
 * without reading the chat.
 * @since 1
 */
export class TaskBriefV1 {
  @IsText(300)
  abstract: string;

  /** Inputs drawn from the conversation and earlier task results. */
  @IsString()
  @MaxLength(20000)
  inputs: string;

  @IsText(8000)
  description: string;

  @IsText(2000)
  completionCriteria: string;
}

/** @since 1 */
export class TaskV1 {
  @IsUUID()
  id: string;

  @IsUUID()
  goalId: string;

  @IsUUID()
  groupId: string;

  /** The task this one belongs to, when it runs inside a sub-team's goal. */
  @IsOptional()
  @IsUUID()
  @Nullable()
  parentTaskId: string | null;

  @IsUUID()
  assignerId: string;

  @IsUUID()
  assigneeId: string;

  @IsString()
  assigneeName: string;

  @IsIn(['sync', 'async'])
  mode: 'sync' | 'async';

  @IsString()
  description: string;

  @IsOptional()
  @IsNested(() => TaskBriefV1)
  @Nullable()
  brief: TaskBriefV1 | null;

  @IsIn(TASK_STATES)
  state: TaskState;

  @IsOptional()
  @IsString()
  @Nullable()
  result: string | null;

  /** Latest progress note or the failure reason. */
  @IsOptional()
  @IsString()
  @Nullable()
  statusMessage: string | null;

  /** When this task fails unless finished. */
  @IsOptional()
  @IsDateString()
  @Nullable()
  deadline: string | null;

  @IsInt()
  attempts: number;

  /** Sub-team goal formed for this task, if its owner delegated it. */
  @IsOptional()
  @IsUUID()
  @Nullable()
  childGoalId: string | null;

  @IsDateString()
  createdAt: string;

  @IsDateString()
  updatedAt: string;

  @IsOptional()
  @IsDateString()
  @Nullable()
  startedAt: string | null;

  @IsOptional()
  @IsDateString()
  @Nullable()
  completedAt: string | null;
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * An assignee reports on its task: `working` (with progress), then `completed` with a result or `failed` /
 * `rejected` with a reason. Reporting the same terminal state twice is accepted (idempotent); a report on a
 * canceled or already finished task is INVALID_STATE, which tells the agent to stop.
 * @since 1
 */
export class ReportTaskV1Request {
  @IsUUID()
  taskId: string;

  @IsUUID()
  agentId: string;

  @IsIn(['working', 'input-required', 'completed', 'failed', 'rejected'])
  state: Exclude<TaskState, 'submitted' | 'canceled'>;

  /** Progress note (working), result (completed) or reason (failed, rejected). */
  @IsOptional()
  @IsString()
  @MaxLength(100000)
  content?: string;

  @IsOptional()
  @IsNested(() => ModelUsageV1)
  usage?: ModelUsageV1;
}

export const ReportTaskV1 = requestContract<ReportTaskV1Request, TaskV1>({
  subject: 'ioa.scheduler.task.report.v1',
  owner: 'scheduler',
  request: ReportTaskV1Request,
  response: TaskV1,
  summary: 'An assignee reports progress or the outcome of its task.',
  since: '1',
});

/** @since 1 */
export class GetTaskV1Request {
  @IsUUID()
  taskId: string;
}

export const GetTaskV1 = requestContract<GetTaskV1Request, TaskV1>({
  subject: 'ioa.scheduler.task.get.v1',
  owner: 'scheduler',
  request: GetTaskV1Request,
  response: TaskV1,
  summary: 'One task with its brief, state and result.',
  since: '1',
});

/** @since 1 */
export class TaskUpdatedV1Event {
  @IsNested(() => TaskV1)
  task: TaskV1;
}

export const TaskUpdatedV1 = eventContract<TaskUpdatedV1Event>({
  subject: 'ioa.scheduler.task.updated.v1',
  owner: 'scheduler',
  payload: TaskUpdatedV1Event,
  summary: 'A task changed state (the chat writes progress and result notices from these).',
  since: '1',
  stream: SCHEDULER_EVENTS_STREAM,
});
