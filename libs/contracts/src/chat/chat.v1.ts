import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
} from 'class-validator';
import { eventContract, requestContract } from '../common/contract.js';
import { IsIntegerIn, IsNested, IsText } from '../common/validation.js';
import { ModelUsageV1 } from '../common/usage.v1.js';
import { TASK_STATES, type TaskState } from '../scheduler/tasks.v1.js';
import { Nullable } from '../common/payload-bounds.js';

/**
 * Group chat. The chat service is the single authority over each group's conversation state: members *propose*
 * moves, the service validates them against the state machine and either applies them or rejects them with a
 * reason the member can act on.
 *
 *   discussing ──sync_task_assign──▶ awaiting_sync_tasks ──last sync task done──▶ discussing (turn: assigner)
 *   discussing ──pause(taskIds)────▶ paused              ──last awaited task done─▶ discussing (turn: pauser)
 *   discussing ──turn limit / budget / forced──▶ concluding ──conclude──▶ concluded
 *   discussing ──conclude──▶ concluded ──user message──▶ discussing (re-opened)
 *   any open state ──close (goal canceled / failed)──▶ failed
 */
export const CHAT_EVENTS_STREAM = 'IOA_CHAT_EVENTS';

export const GROUP_STATES = [
  'discussing',
  'awaiting_sync_tasks',
  'paused',
  'concluding',
  'concluded',
  'failed',
] as const;
export type GroupState = (typeof GROUP_STATES)[number];

/** Moves a member may propose (IoA's message vocabulary). */
export const MOVE_TYPES = ['discussion', 'sync_task_assign', 'async_task_assign', 'pause', 'conclude'] as const;
export type MoveType = (typeof MOVE_TYPES)[number];

/** Message types: the moves, plus what the system and people write. Progress/result notices are system-written. */
export const MESSAGE_TYPES = [...MOVE_TYPES, 'progress', 'result', 'system', 'user'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** The reserved speaker id meaning "the person who submitted the goal": naming it asks them a question. */
export const USER_SPEAKER = 'user';
/** Sender id of messages the chat service writes itself. */
export const SYSTEM_SENDER = 'system';

/** @since 1 */
export class GroupMemberV1 {
  @IsUUID()
  agentId: string;

  @IsText(63)
  name: string;

  /** Why this member was chosen (from team formation), shown to the team. */
  @IsOptional()
  @IsText(1000)
  reason?: string;
}

/** A task as a member drafts it in a task-assigning move. @since 1 */
export class TaskDraftV1 {
  /** Must be a member of the group; one owner per task. */
  @IsUUID()
  assigneeId: string;

  /** What to do, in the assigner's words; the owner turns it into a self-contained brief before it runs. */
  @IsText(8000)
  description: string;

  /** A one-line summary for the task ledger. */
  @IsText(300)
  abstract: string;
}

/** A task as the group knows it (the ledger the members see). @since 1 */
export class GroupTaskV1 {
  @IsUUID()
  taskId: string;

  @IsUUID()
  assigneeId: string;

  @IsString()
  assigneeName: string;

  @IsUUID()
  assignerId: string;

  @IsIn(['sync', 'async'])
  mode: 'sync' | 'async';

  @IsString()
  abstract: string;

  /** A2A task state, as last reported by the scheduler (`submitted` until then). */
  @IsIn(TASK_STATES)
  state: TaskState;

  /** The result (or failure reason), bounded; the full text lives in the scheduler's task. */
  @IsOptional()
  @IsString()
  result?: string;
}

/** @since 1 */
export class ChatMessageV1 {
  @IsUUID()
  id: string;

  @IsUUID()
  groupId: string;

  /** 1, 2, 3… per group, without gaps: consumers de-duplicate and order by it. */
  @IsInt()
  seq: number;

  @IsIn(MESSAGE_TYPES)
  type: MessageType;

  /** An agent id, `system`, or `user`. */
  @IsString()
  senderId: string;

  @IsString()
  senderName: string;

  @IsString()
  content: string;

  @IsOptional()
  @IsString()
  nextSpeaker?: string;

  @IsOptional()
  @IsNested(() => GroupTaskV1, { each: true })
  tasks?: GroupTaskV1[];

  @IsOptional()
  @IsArray()
  @IsUUID('all', { each: true })
  awaitTaskIds?: string[];

  /** The turn during which the message was written. */
  @IsInt()
  turn: number;

  @IsDateString()
  createdAt: string;
}

/** @since 1 */
export class GroupV1 {
  @IsUUID()
  id: string;

  @IsUUID()
  goalId: string;

  @IsString()
  goal: string;

  @IsIn(GROUP_STATES)
  state: GroupState;

  @IsNested(() => GroupMemberV1, { each: true })
  members: GroupMemberV1[];

  @IsUUID()
  leaderId: string;

  /** Who holds the turn: an agent id, `user` (a question to the person), or null when nobody may speak. */
  @IsOptional()
  @IsString()
  @Nullable()
  currentSpeaker: string | null;

  @IsInt()
  turn: number;

  @IsInt()
  maxTurns: number;

  /** When the current speaker's turn times out. */
  @IsOptional()
  @IsDateString()
  @Nullable()
  turnDeadline: string | null;

  /** Tasks the conversation waits on (sync tasks, or the tasks of a pause). */
  @IsArray()
  @IsUUID('all', { each: true })
  awaitingTaskIds: string[];

  @IsNested(() => GroupTaskV1, { each: true })
  tasks: GroupTaskV1[];

  @IsOptional()
  @IsString()
  @Nullable()
  conclusion: string | null;

  @IsInt()
  lastSeq: number;

  @IsDateString()
  createdAt: string;

  @IsDateString()
  updatedAt: string;
}

// ---------------------------------------------------------------------------------------------------------------
// requests

/** @since 1 */
export class CreateGroupV1Request {
  @IsUUID()
  goalId: string;

  @IsText(8000)
  goal: string;

  @IsNested(() => GroupMemberV1, { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  members: GroupMemberV1[];

  /** Speaks first; gets the turn back after sync tasks and at the turn limit. Must be a member. */
  @IsUUID()
  leaderId: string;

  @IsOptional()
  @IsIntegerIn(2, 200)
  maxTurns: number = 12;

  @IsOptional()
  @IsIntegerIn(1, 3600)
  turnTimeoutSeconds: number = 60;
}

export const CreateGroupV1 = requestContract<CreateGroupV1Request, GroupV1>({
  subject: 'ioa.chat.group.create.v1',
  owner: 'chat',
  request: CreateGroupV1Request,
  response: GroupV1,
  summary: 'Open a group chat for a goal; the leader gets the first turn.',
  since: '1',
});

/** @since 1 */
export class GetGroupV1Request {
  @IsUUID()
  groupId: string;
}

export const GetGroupV1 = requestContract<GetGroupV1Request, GroupV1>({
  subject: 'ioa.chat.group.get.v1',
  owner: 'chat',
  request: GetGroupV1Request,
  response: GroupV1,
  summary: "A group's state, members, turn and task ledger.",
  since: '1',
});

/** @since 1 */
export class ListMessagesV1Request {
  @IsUUID()
  groupId: string;

  /** Messages with a larger seq than this (0 = from the start). */
  @IsOptional()
  @IsIntegerIn(0)
  afterSeq: number = 0;

  @IsOptional()
  @IsIntegerIn(1, 500)
  limit: number = 100;
}

/** @since 1 */
export class ListMessagesV1Response {
  @IsNested(() => ChatMessageV1, { each: true })
  items: ChatMessageV1[];

  @IsInt()
  lastSeq: number;
}

export const ListMessagesV1 = requestContract<ListMessagesV1Request, ListMessagesV1Response>({
  subject: 'ioa.chat.group.messages.list.v1',
  owner: 'chat',
  request: ListMessagesV1Request,
  response: ListMessagesV1Response,
  summary: "A page of a group's messages in seq order.",
  since: '1',
});

/** The fields of a move that the speaker chooses (what a communicator decides). @since 1 */
export class MoveV1 {
  @IsIn(MOVE_TYPES)
  type: MoveType;

  @IsText(20000)
  content: string;

  /**
   * Required for `discussion` and `async_task_assign`: a member id, or `user` to ask the person a question.
   * Not used by `sync_task_assign`: the turn returns to the assigner when its sync tasks finish.
   */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  nextSpeaker?: string;

  /** Required (1..8) for task-assigning moves. */
  @IsOptional()
  @IsNested(() => TaskDraftV1, { each: true })
  @ArrayMaxSize(8)
  tasks?: TaskDraftV1[];

  /** Required for `pause`: unfinished tasks of this group to wait for. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsUUID('all', { each: true })
  awaitTaskIds?: string[];
}

/** A member's proposed move, for the turn it holds. @since 1 */
export class ProposeMoveV1Request extends MoveV1 {
  @IsUUID()
  groupId: string;

  @IsUUID()
  speakerId: string;

  /** The turn the move answers; a move for an old turn is rejected (it arrived after a timeout passed the turn on). */
  @IsIntegerIn(1)
  turn: number;

  @IsOptional()
  @IsNested(() => ModelUsageV1)
  usage?: ModelUsageV1;
}

/** @since 1 */
export class ProposeMoveV1Response {
  @IsNested(() => ChatMessageV1)
  message: ChatMessageV1;

  @IsNested(() => GroupV1)
  group: GroupV1;
}

export const ProposeMoveV1 = requestContract<ProposeMoveV1Request, ProposeMoveV1Response>({
  subject: 'ioa.chat.move.propose.v1',
  owner: 'chat',
  request: ProposeMoveV1Request,
  response: ProposeMoveV1Response,
  summary: 'The turn holder proposes a move; INVALID_STATE / FORBIDDEN replies say why it was rejected.',
  since: '1',
});

/** A person speaks in the group (answer to a question, or a follow-up that re-opens a concluded group). @since 1 */
export class PostUserMessageV1Request {
  @IsUUID()
  groupId: string;

  @IsText(20000)
  content: string;

  @IsOptional()
  @IsText(100)
  author: string = 'user';
}

export const PostUserMessageV1 = requestContract<PostUserMessageV1Request, ProposeMoveV1Response>({
  subject: 'ioa.chat.user-message.post.v1',
  owner: 'chat',
  request: PostUserMessageV1Request,
  response: ProposeMoveV1Response,
  summary: 'A person posts into a group; a concluded group re-opens with the turn to its leader.',
  since: '1',
});

/** @since 1 */
export class EndGroupV1Request {
  @IsUUID()
  groupId: string;

  @IsText(2000)
  reason: string;
}

export const ForceConclusionV1 = requestContract<EndGroupV1Request, GroupV1>({
  subject: 'ioa.chat.group.force-conclusion.v1',
  owner: 'chat',
  request: EndGroupV1Request,
  response: GroupV1,
  summary: 'Move a group to `concluding` (budget or turn limit): its leader must conclude with what it has.',
  since: '1',
});

export const CloseGroupV1 = requestContract<EndGroupV1Request, GroupV1>({
  subject: 'ioa.chat.group.close.v1',
  owner: 'chat',
  request: EndGroupV1Request,
  response: GroupV1,
  summary: 'End a group without conclusion (goal canceled or failed): state `failed`, no more turns.',
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// events

/** @since 1 */
export class MessagePostedV1Event {
  @IsNested(() => ChatMessageV1)
  message: ChatMessageV1;

  @IsUUID()
  goalId: string;

  /** Model usage of the move that produced this message, for budgets and accounting. */
  @IsOptional()
  @IsNested(() => ModelUsageV1)
  usage?: ModelUsageV1;
}

export const MessagePostedV1 = eventContract<MessagePostedV1Event>({
  subject: 'ioa.chat.message.posted.v1',
  owner: 'chat',
  payload: MessagePostedV1Event,
  summary: 'A message was appended to a group (delivery to members and observers; ordered by seq).',
  since: '1',
  stream: CHAT_EVENTS_STREAM,
});

/** @since 1 */
export class GroupStateChangedV1Event {
  @IsNested(() => GroupV1)
  group: GroupV1;

  @IsIn(GROUP_STATES)
  previousState: GroupState;

  @IsString()
  reason: string;
}

export const GroupStateChangedV1 = eventContract<GroupStateChangedV1Event>({
  subject: 'ioa.chat.group.state-changed.v1',
  owner: 'chat',
  payload: GroupStateChangedV1Event,
  summary: "A group's conversation state changed (including `concluded`, which carries the conclusion).",
  since: '1',
  stream: CHAT_EVENTS_STREAM,
});

/** The context a speaker needs to move: bounded history plus the task ledger, never the whole transcript. @since 1 */
export class TurnGrantedV1Event {
  @IsUUID()
  groupId: string;

  @IsUUID()
  goalId: string;

  @IsString()
  goal: string;

  @IsInt()
  turn: number;

  @IsInt()
  maxTurns: number;

  @IsUUID()
  speakerId: string;

  @IsUUID()
  leaderId: string;

  /** Only `conclude` will be accepted (turn limit, budget, or a forced conclusion). */
  @IsBoolean()
  mustConclude: boolean;

  /** Why the turn came to this speaker (named by the previous speaker, tasks finished, timeout…). */
  @IsString()
  reason: string;

  @IsDateString()
  deadline: string;

  @IsNested(() => GroupMemberV1, { each: true })
  members: GroupMemberV1[];

  /** The most recent messages (bounded window). */
  @IsNested(() => ChatMessageV1, { each: true })
  recentMessages: ChatMessageV1[];

  @IsNested(() => GroupTaskV1, { each: true })
  tasks: GroupTaskV1[];
}

export const TurnGrantedV1 = eventContract<TurnGrantedV1Event>({
  subject: 'ioa.chat.turn.granted.v1',
  owner: 'chat',
  payload: TurnGrantedV1Event,
  summary: 'A member holds the turn and should propose a move before the deadline.',
  since: '1',
  stream: CHAT_EVENTS_STREAM,
});

/** @since 1 */
export class TasksAssignedV1Event {
  @IsUUID()
  groupId: string;

  @IsUUID()
  goalId: string;

  @IsUUID()
  assignerId: string;

  @IsIn(['sync', 'async'])
  mode: 'sync' | 'async';

  /** Ids minted by chat, so the group can wait on them before the scheduler has stored them. */
  @IsNested(() => GroupTaskV1, { each: true })
  tasks: GroupTaskV1[];

  /** Full drafts, in the same order as `tasks` (drafts[i] describes tasks[i]). */
  @IsNested(() => TaskDraftV1, { each: true })
  drafts: TaskDraftV1[];

  @IsUUID()
  messageId: string;
}

export const TasksAssignedV1 = eventContract<TasksAssignedV1Event>({
  subject: 'ioa.chat.tasks.assigned.v1',
  owner: 'chat',
  payload: TasksAssignedV1Event,
  summary: 'A move assigned tasks; the scheduler stores and dispatches them.',
  since: '1',
  stream: CHAT_EVENTS_STREAM,
});
