import { IsBoolean, IsInt, IsOptional, IsString } from 'class-validator';
import { IsNested, IsText, TaskBriefV1 } from '@ioa/contracts';
import { definePurpose } from '../language-model.js';
import { AgentProfile, ConversationMessage, TaskResultView } from './profiles.js';

// ---------------------------------------------------------------------------------------------------------------
// task.brief: a drafted task → the self-contained brief its owner works from

export class TaskBriefInput {
  @IsText(8000)
  goal: string;

  /** The description and abstract from the task draft. */
  @IsText(8000)
  description: string;

  @IsText(300)
  abstract: string;

  @IsNested(() => AgentProfile)
  assignee: AgentProfile;

  /** Recent chat window (oldest first). */
  @IsNested(() => ConversationMessage, { each: true })
  recentMessages: ConversationMessage[];

  /** Earlier finished tasks of the goal, oldest first. */
  @IsNested(() => TaskResultView, { each: true })
  earlierResults: TaskResultView[];
}

/** The output is the contract's brief itself. */
export const TaskBriefPurpose = definePurpose({
  purpose: 'task.brief',
  inputType: TaskBriefInput,
  outputType: TaskBriefV1,
  instructions:
    'Rewrite the task into a self-contained brief for its assignee: `abstract` (one line), `inputs` (everything ' +
    'from the chat and earlier results the assignee needs; quote results, do not paraphrase code), `description` ' +
    '(what to do, keeping any code verbatim) and `completionCriteria` (how the assignee knows it is done).',
});

// ---------------------------------------------------------------------------------------------------------------
// task.delegate: should the task's owner form a sub-team for it?

export class TaskDelegateInput {
  @IsNested(() => AgentProfile)
  agent: AgentProfile;

  @IsNested(() => TaskBriefV1)
  brief: TaskBriefV1;

  /** The depth of the goal the task belongs to, and the limit: a sub-team is possible while depth < maxDepth. */
  @IsInt()
  depth: number;

  @IsInt()
  maxDepth: number;
}

export class TaskDelegateOutput {
  @IsBoolean()
  delegate: boolean;

  /** The sub-team's goal, when delegating. */
  @IsOptional()
  @IsText(8000)
  goal?: string;

  @IsString()
  reason: string;
}

export const TaskDelegatePurpose = definePurpose({
  purpose: 'task.delegate',
  inputType: TaskDelegateInput,
  outputType: TaskDelegateOutput,
  instructions:
    'Decide whether `agent` should do this task itself or form a sub-team for it. Delegate only when the task ' +
    "needs skills the agent lacks and depth < maxDepth; then write the sub-team's goal (self-contained).",
});
