import { IsBoolean, IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { GroupTaskV1, IsNested, IsText, MoveV1 } from '@ioa/contracts';
import { definePurpose } from '../language-model.js';
import { AgentProfile, ConversationMessage } from './profiles.js';

// ---------------------------------------------------------------------------------------------------------------
// turn.move: the speaker's next move in its group

/** Bounded context of one turn (from `TurnGrantedV1`, plus the members' skills from their cards). */
export class TurnMoveInput {
  @IsText(8000)
  goal: string;

  /** Who speaks now. */
  @IsNested(() => AgentProfile)
  self: AgentProfile;

  @IsUUID()
  leaderId: string;

  @IsInt()
  turn: number;

  @IsInt()
  maxTurns: number;

  /** Only `conclude` will be accepted. */
  @IsBoolean()
  mustConclude: boolean;

  /** Why the turn came to the speaker. */
  @IsString()
  reason: string;

  @IsNested(() => AgentProfile, { each: true })
  members: AgentProfile[];

  /** The most recent messages, oldest first. */
  @IsNested(() => ConversationMessage, { each: true })
  recentMessages: ConversationMessage[];

  /** The group's task ledger, in assignment order. */
  @IsNested(() => GroupTaskV1, { each: true })
  tasks: GroupTaskV1[];

  /** Why the chat rejected the previous proposal for this turn, when retrying. */
  @IsOptional()
  @IsString()
  rejection?: string;
}

/** A proposed move: the fields of `ProposeMoveV1Request` that the speaker chooses (the contract's `MoveV1`). */
export type TurnMoveOutput = MoveV1;

export const TurnMovePurpose = definePurpose({
  purpose: 'turn.move',
  inputType: TurnMoveInput,
  outputType: MoveV1,
  instructions: [
    'You speak for `self` in a group chat working on `goal`. Choose exactly one move:',
    '- discussion: say something useful; `nextSpeaker` is another member id or "user" (to ask the person).',
    '- async_task_assign: give 1–8 tasks to members (one owner each, `assigneeId` a member id, a self-contained ' +
      '`description` and a one-line `abstract`); the talk goes on; `nextSpeaker` is required.',
    '- sync_task_assign: the same, but the conversation waits until every task finished.',
    '- pause: wait for unfinished tasks (`awaitTaskIds` from the ledger); you get the turn back when they finish.',
    '- conclude: the goal is answered (or `mustConclude` is true); not allowed while sync tasks are open.',
    'Do not repeat what others said. Do not assign work that is already in the ledger. If `rejection` is set, ' +
      'your previous proposal was refused for that reason: fix it.',
  ].join('\n'),
});

// ---------------------------------------------------------------------------------------------------------------
// conclusion: the final answer of a group (one more call after deciding to conclude)

export class ConclusionInput {
  @IsText(8000)
  goal: string;

  @IsNested(() => AgentProfile)
  self: AgentProfile;

  @IsNested(() => AgentProfile, { each: true })
  members: AgentProfile[];

  @IsNested(() => ConversationMessage, { each: true })
  recentMessages: ConversationMessage[];

  @IsNested(() => GroupTaskV1, { each: true })
  tasks: GroupTaskV1[];

  /** Why the group concludes now (forced by a budget or the turn limit, or the work is done). */
  @IsString()
  reason: string;

  @IsBoolean()
  forced: boolean;
}

export class ConclusionOutput {
  @IsText(20000)
  conclusion: string;
}

export const ConclusionPurpose = definePurpose({
  purpose: 'conclusion',
  inputType: ConclusionInput,
  outputType: ConclusionOutput,
  instructions:
    "Write the group's conclusion: the answer to the goal, drawn from the task results and the conversation. " +
    'If the conclusion is forced (`forced`), say so and say what is missing. Plain text or Markdown.',
});
