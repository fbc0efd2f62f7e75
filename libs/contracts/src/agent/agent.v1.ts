import { IsBoolean, IsDateString, IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { eventContract, requestContract } from '../common/contract.js';
import { IsNested } from '../common/validation.js';
import { TaskBriefV1 } from '../scheduler/tasks.v1.js';

/**
 * Subjects addressed to one agent: `*` is the agent's id (see `subjectFor`). An agent that joins over NATS
 * serves `ioa.agent.<its id>.task.v1` and listens to `ioa.agent.<its id>.task-canceled.v1`. With its own identity
 * (every network with authentication) it acts on its own subjects too (`agent-actions.v1.ts`: it reports on
 * `ioa.agent.<its id>.task.report.v1`) and chat delivers its turns and its groups' messages to it
 * (`agent-deliveries.v1.ts`); on a broker without authentication it may use the services' subjects instead
 * (`ioa.scheduler.task.report.v1`, `ioa.chat.turn.granted.v1` filtered on `speakerId`, `ioa.chat.move.propose.v1`).
 */

/** @since 1 */
export class TaskAssignmentV1Request {
  @IsUUID()
  taskId: string;

  @IsUUID()
  goalId: string;

  @IsUUID()
  groupId: string;

  @IsUUID()
  agentId: string;

  @IsNested(() => TaskBriefV1)
  brief: TaskBriefV1;

  @IsDateString()
  deadline: string;

  /** Depth of the goal this task belongs to, and the maximum: a sub-team may be formed while depth < maxDepth. */
  @IsInt()
  depth: number;

  @IsInt()
  maxDepth: number;

  @IsInt()
  attempt: number;
}

/** The agent only acknowledges receipt here; the work is reported later through `ReportTaskV1`. @since 1 */
export class TaskAssignmentV1Response {
  @IsBoolean()
  accepted: boolean;

  @IsOptional()
  @IsString()
  reason?: string;
}

export const AssignTaskV1 = requestContract<TaskAssignmentV1Request, TaskAssignmentV1Response>({
  subject: 'ioa.agent.*.task.v1',
  owner: 'agent',
  request: TaskAssignmentV1Request,
  response: TaskAssignmentV1Response,
  summary: 'Hand a task (with its brief) to its assignee, which acknowledges at once and reports later.',
  since: '1',
});

/** @since 1 */
export class TaskCanceledV1Event {
  @IsUUID()
  taskId: string;

  @IsString()
  reason: string;
}

export const TaskCanceledV1 = eventContract<TaskCanceledV1Event>({
  subject: 'ioa.agent.*.task-canceled.v1',
  owner: 'agent',
  payload: TaskCanceledV1Event,
  summary: 'Stop working on a task (goal canceled, deadline passed, or re-assigned).',
  since: '1',
});
