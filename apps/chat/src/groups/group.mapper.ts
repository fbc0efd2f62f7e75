import type { ChatMessageV1, GroupMemberV1, GroupTaskV1, GroupV1 } from '@ioa/contracts';
import type { ConversationMember, ConversationSnapshot, LedgerTask } from '../moves/conversation-state-machine.js';
import type { GroupMemberEntity } from './group-member.entity.js';
import type { GroupTaskEntity } from './group-task.entity.js';
import type { GroupEntity } from './group.entity.js';
import type { MessageEntity } from './message.entity.js';

/** A group row with its members (round-robin order) and ledger (assignment order), as read under its lock. */
export interface GroupRecord {
  group: GroupEntity;
  members: GroupMemberEntity[];
  tasks: GroupTaskEntity[];
}

export function toSnapshot(record: GroupRecord): ConversationSnapshot {
  const { group } = record;
  return {
    groupId: group.id,
    goalId: group.goalId,
    goal: group.goal,
    leaderId: group.leaderId,
    members: record.members.map(toConversationMember),
    originalMaxTurns: group.originalMaxTurns,
    turnTimeoutSeconds: group.turnTimeoutSeconds,
    tasks: record.tasks.map(toLedgerTask),
    state: group.state,
    currentSpeaker: group.currentSpeaker,
    turn: group.turn,
    maxTurns: group.maxTurns,
    turnDeadline: group.turnDeadline,
    awaitingTaskIds: group.awaitingTaskIds,
    resumeSpeakerId: group.resumeSpeakerId,
    conclusion: group.conclusion,
  };
}

function toConversationMember(member: GroupMemberEntity): ConversationMember {
  return { agentId: member.agentId, name: member.name, reason: member.reason };
}

export function toLedgerTask(task: GroupTaskEntity): LedgerTask {
  return {
    taskId: task.taskId,
    assigneeId: task.assigneeId,
    assigneeName: task.assigneeName,
    assignerId: task.assignerId,
    mode: task.mode,
    abstract: task.abstract,
    description: task.description,
    state: task.state,
    result: task.result,
    statusMessage: task.statusMessage,
    sourceUpdatedAt: task.sourceUpdatedAt?.toISOString() ?? null,
  };
}

export function toGroupMemberV1(member: ConversationMember | GroupMemberEntity): GroupMemberV1 {
  const view: GroupMemberV1 = { agentId: member.agentId, name: member.name };
  if (member.reason) view.reason = member.reason;
  return view;
}

export function toGroupTaskV1(task: LedgerTask): GroupTaskV1 {
  const view: GroupTaskV1 = {
    taskId: task.taskId,
    assigneeId: task.assigneeId,
    assigneeName: task.assigneeName,
    assignerId: task.assignerId,
    mode: task.mode,
    abstract: task.abstract,
    state: task.state,
  };
  if (task.result !== null) view.result = task.result;
  return view;
}

export function toGroupV1(record: GroupRecord): GroupV1 {
  const { group } = record;
  return {
    id: group.id,
    goalId: group.goalId,
    goal: group.goal,
    state: group.state,
    members: record.members.map(toGroupMemberV1),
    leaderId: group.leaderId,
    currentSpeaker: group.currentSpeaker,
    turn: group.turn,
    maxTurns: group.maxTurns,
    turnDeadline: group.turnDeadline?.toISOString() ?? null,
    awaitingTaskIds: group.awaitingTaskIds,
    tasks: record.tasks.map((task) => toGroupTaskV1(toLedgerTask(task))),
    conclusion: group.conclusion,
    lastSeq: group.lastSeq,
    createdAt: group.createdAt.toISOString(),
    updatedAt: group.updatedAt.toISOString(),
  };
}

export function toChatMessageV1(message: MessageEntity): ChatMessageV1 {
  const view: ChatMessageV1 = {
    id: message.id,
    groupId: message.groupId,
    seq: message.seq,
    type: message.type,
    senderId: message.senderId,
    senderName: message.senderName,
    content: message.content,
    turn: message.turn,
    createdAt: message.createdAt.toISOString(),
  };
  if (message.nextSpeaker !== null) view.nextSpeaker = message.nextSpeaker;
  if (message.tasks !== null) view.tasks = message.tasks;
  if (message.awaitTaskIds !== null) view.awaitTaskIds = message.awaitTaskIds;
  return view;
}
