import { IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { IsNested, IsText } from '@ioa/contracts';

/**
 * Shapes shared by several purposes. They are deliberately small projections of the contract classes (an agent
 * card, a chat message): a prompt carries what a decision needs, not whole records.
 */

/** One skill of an agent, as a model sees it. */
export class SkillProfile {
  @IsString()
  name: string;

  @IsString()
  description: string;

  @IsString({ each: true })
  tags: string[] = [];
}

/** A candidate or member agent, as a model sees it. */
export class AgentProfile {
  @IsUUID()
  agentId: string;

  @IsString()
  name: string;

  @IsOptional()
  @IsString()
  description?: string;

  @IsNested(() => SkillProfile, { each: true })
  skills: SkillProfile[] = [];
}

/** A chat message, trimmed to what a speaker needs. */
export class ConversationMessage {
  @IsInt()
  seq: number;

  /** A `MessageType` of the chat contract. */
  @IsString()
  type: string;

  @IsString()
  senderId: string;

  @IsString()
  senderName: string;

  @IsString()
  content: string;

  @IsOptional()
  @IsString()
  nextSpeaker?: string;
}

/** A finished task's result, as input to a brief or a report. */
export class TaskResultView {
  @IsText(300)
  abstract: string;

  @IsString()
  assigneeName: string;

  @IsString()
  state: string;

  @IsOptional()
  @IsString()
  result?: string;
}
