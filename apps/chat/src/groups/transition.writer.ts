import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  GroupStateChangedV1,
  MessagePostedToMemberV1,
  MessagePostedV1,
  subjectFor,
  TasksAssignedV1,
  TurnGrantedToAgentV1,
  TurnGrantedV1,
  type EventContract,
  type MessagePostedV1Event,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { outboxMessage, type OutboxMessage } from '@ioa/database';
import { chatConfig, type ChatConfig } from '../chat.config.js';
import type { LedgerTask, Transition } from '../moves/conversation-state-machine.js';
import { boundLedger, boundWindow } from '../moves/turn-window.js';
import { GroupTaskEntity } from './group-task.entity.js';
import type { GroupEntity } from './group.entity.js';
import { toChatMessageV1, toGroupMemberV1, toGroupTaskV1, toGroupV1, type GroupRecord } from './group.mapper.js';
import type { GroupsTransaction } from './groups.repository.js';
import { MessageEntity } from './message.entity.js';

/** Message ids of the chat's events: stable per fact, so a re-publish is dropped by the stream. */
export const eventIds = {
  message: (groupId: string, seq: number) => `${groupId}:${seq}`,
  tasks: (groupId: string, seq: number) => `${groupId}:${seq}:tasks`,
  state: (groupId: string, version: number) => `${groupId}:state:${version}`,
  turn: (groupId: string, turn: number) => `${groupId}:turn:${turn}`,
};

export interface Written {
  record: GroupRecord;
  messages: MessageEntity[];
}

/**
 * Persists one transition of the state machine inside the caller's transaction (which holds the group's row lock):
 * appends its messages with the next seq numbers, writes the ledger and the group's new fields, and puts the
 * events it causes in the outbox, in the order members and observers should see them:
 * messages → tasks assigned → state changed → turn granted.
 */
@Injectable()
export class TransitionWriter {
  constructor(@Inject(chatConfig.KEY) private readonly config: ChatConfig) {}

  async write(
    transaction: GroupsTransaction,
    record: GroupRecord,
    transition: Transition,
    now: Date,
  ): Promise<Written> {
    const before = record.group;
    const firstSeq = before.lastSeq + 1;

    const messages = transition.messages.map((draft, index) => {
      const message = new MessageEntity();
      Object.assign(message, {
        id: randomUUID(),
        groupId: before.id,
        seq: firstSeq + index,
        type: draft.type,
        senderId: draft.senderId,
        senderName: draft.senderName,
        content: draft.content,
        nextSpeaker: draft.nextSpeaker,
        tasks: draft.tasks?.map(toGroupTaskV1) ?? null,
        awaitTaskIds: draft.awaitTaskIds,
        usage: draft.usage,
        turn: before.turn,
        createdAt: now,
      } satisfies MessageEntity);
      return message;
    });

    const tasks = [...record.tasks];
    const inserted: GroupTaskEntity[] = [];
    for (const [ordinal, ledger] of transition.ledger.entries()) {
      const index = tasks.findIndex((task) => task.taskId === ledger.taskId);
      if (index >= 0) {
        const changes = ledgerColumns(ledger, now);
        await transaction.updateTask(ledger.taskId, changes);
        tasks[index] = Object.assign(new GroupTaskEntity(), tasks[index], changes);
      } else {
        const assigningSeq = transition.assignment ? firstSeq + transition.assignment.messageIndex : firstSeq;
        const task = Object.assign(new GroupTaskEntity(), {
          taskId: ledger.taskId,
          groupId: before.id,
          assignerId: ledger.assignerId,
          assigneeId: ledger.assigneeId,
          assigneeName: ledger.assigneeName,
          mode: ledger.mode,
          abstract: ledger.abstract,
          description: ledger.description,
          messageSeq: assigningSeq,
          ordinal,
          createdAt: now,
          ...ledgerColumns(ledger, now),
        } satisfies GroupTaskEntity);
        inserted.push(task);
        tasks.push(task);
      }
    }
    // Ledger rows reference the assigning message's seq, so messages go in first (one statement each way).
    await transaction.insertMessages(messages);
    await transaction.insertTasks(inserted);

    const group: GroupEntity = {
      ...before,
      ...transition.fields,
      lastSeq: before.lastSeq + messages.length,
      version: before.version + 1,
      updatedAt: now,
    };
    await transaction.updateGroup(before.id, {
      ...transition.fields,
      lastSeq: group.lastSeq,
      version: group.version,
      updatedAt: now,
    });

    const after: GroupRecord = { group, members: record.members, tasks };
    await transaction.enqueue(await this.events(transaction, after, transition, messages));
    return { record: after, messages };
  }

  private async events(
    transaction: GroupsTransaction,
    record: GroupRecord,
    transition: Transition,
    messages: MessageEntity[],
  ): Promise<OutboxMessage[]> {
    const { group } = record;
    const events: OutboxMessage[] = [];
    for (const [index, message] of messages.entries()) {
      const event: MessagePostedV1Event = { message: toChatMessageV1(message), goalId: group.goalId };
      const usage = transition.messages[index].usage;
      if (usage) event.usage = usage;
      events.push(outboxMessage(MessagePostedV1, event, eventIds.message(group.id, message.seq)));
      const factId = eventIds.message(group.id, message.seq);
      for (const member of record.members) {
        events.push(...delivery(MessagePostedToMemberV1, event, member.agentId, factId));
      }
    }
    const { assignment } = transition;
    if (assignment) {
      const message = messages[assignment.messageIndex];
      events.push(
        outboxMessage(
          TasksAssignedV1,
          {
            groupId: group.id,
            goalId: group.goalId,
            assignerId: assignment.assignerId,
            mode: assignment.mode,
            tasks: assignment.tasks.map(toGroupTaskV1),
            drafts: assignment.drafts.map((draft) => ({
              assigneeId: draft.assigneeId,
              description: draft.description,
              abstract: draft.abstract,
            })),
            messageId: message.id,
          },
          eventIds.tasks(group.id, message.seq),
        ),
      );
    }
    const view = toGroupV1(record);
    if (transition.stateChange) {
      events.push(
        outboxMessage(
          GroupStateChangedV1,
          { group: view, previousState: transition.stateChange.previousState, reason: transition.stateChange.reason },
          eventIds.state(group.id, group.version),
        ),
      );
    }
    if (transition.grant) {
      const recent = await transaction.recentMessages(group.id, this.config.turnWindowMessages);
      const grant: TurnGrantedV1Event = {
        groupId: group.id,
        goalId: group.goalId,
        goal: group.goal,
        turn: group.turn,
        maxTurns: group.maxTurns,
        speakerId: transition.grant.speakerId,
        leaderId: group.leaderId,
        mustConclude: transition.grant.mustConclude,
        reason: transition.grant.reason,
        deadline: group.turnDeadline!.toISOString(),
        members: record.members.map(toGroupMemberV1),
        recentMessages: boundWindow(recent.map(toChatMessageV1), this.config.turnWindowChars),
        tasks: boundLedger(view.tasks),
      };
      events.push(outboxMessage(TurnGrantedV1, grant, eventIds.turn(group.id, group.turn)));
      events.push(...delivery(TurnGrantedToAgentV1, grant, grant.speakerId, eventIds.turn(group.id, group.turn)));
    }
    return events;
  }
}

/**
 * The same fact delivered to one agent on its own subject (core NATS, which de-duplicates nothing: the message id
 * only keeps the outbox's rows apart). An id that cannot be a subject token (an upper-case UUID some caller gave
 * chat) names no agent identity, so nobody could read it there: it gets no delivery.
 */
function delivery<T>(contract: EventContract<T>, payload: T, agentId: string, factId: string): OutboxMessage[] {
  if (!/^[a-z0-9-]+$/.test(agentId)) return [];
  return [outboxMessage(contract, payload, `${factId}:to:${agentId}`, { subject: subjectFor(contract, agentId) })];
}

function ledgerColumns(ledger: LedgerTask, now: Date) {
  return {
    state: ledger.state,
    result: ledger.result,
    statusMessage: ledger.statusMessage,
    sourceUpdatedAt: ledger.sourceUpdatedAt === null ? null : new Date(ledger.sourceUpdatedAt),
    updatedAt: now,
  };
}
