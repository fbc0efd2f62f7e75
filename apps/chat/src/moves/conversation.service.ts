import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  ContractError,
  type EndGroupV1Request,
  type GroupV1,
  type PostUserMessageV1Request,
  type ProposeMoveV1Request,
  type ProposeMoveV1Response,
  type TaskV1,
} from '@ioa/contracts';
import { toChatMessageV1, toGroupV1, toSnapshot, type GroupRecord } from '../groups/group.mapper.js';
import type { GroupEntity } from '../groups/group.entity.js';
import { GroupsRepository, type GroupsTransaction } from '../groups/groups.repository.js';
import type { MessageEntity } from '../groups/message.entity.js';
import { TransitionWriter } from '../groups/transition.writer.js';
import {
  applyTaskUpdate,
  closeGroup,
  forceConclusion,
  postUserMessage,
  proposeMove,
  timeOutTurn,
  type ConversationSnapshot,
  type Decision,
} from './conversation-state-machine.js';

interface Outcome {
  decision: Decision;
  record: GroupRecord;
  messages: MessageEntity[];
}

/**
 * Applies the state machine's decisions to groups. Every transition runs in one transaction that starts by locking
 * the group row (`SELECT … FOR UPDATE`): concurrent proposals for one turn queue up on the lock, the first one
 * wins, the others see the next turn and are rejected as stale. Events are written to the outbox in the same
 * transaction and published after commit by the unit of work, before the caller gets its reply (within its bound).
 */
@Injectable()
export class ConversationService {
  private readonly logger = new Logger(ConversationService.name);

  constructor(
    private readonly groups: GroupsRepository,
    private readonly writer: TransitionWriter,
  ) {}

  async propose(request: ProposeMoveV1Request): Promise<ProposeMoveV1Response> {
    const outcome = await this.transition(
      (transaction) => transaction.lockById(request.groupId),
      (snapshot, now) => proposeMove(snapshot, request, now, randomUUID),
    );
    if (!outcome) throw ContractError.notFound('Group', request.groupId);
    return { message: toChatMessageV1(outcome.messages[0]), group: toGroupV1(outcome.record) };
  }

  async postUserMessage(request: PostUserMessageV1Request): Promise<ProposeMoveV1Response> {
    const outcome = await this.transition(
      (transaction) => transaction.lockById(request.groupId),
      (snapshot, now) => postUserMessage(snapshot, { content: request.content, author: request.author }, now),
    );
    if (!outcome) throw ContractError.notFound('Group', request.groupId);
    return { message: toChatMessageV1(outcome.messages[0]), group: toGroupV1(outcome.record) };
  }

  async forceConclusion(request: EndGroupV1Request): Promise<GroupV1> {
    const outcome = await this.transition(
      (transaction) => transaction.lockById(request.groupId),
      (snapshot, now) => forceConclusion(snapshot, request.reason, now),
    );
    if (!outcome) throw ContractError.notFound('Group', request.groupId);
    return toGroupV1(outcome.record);
  }

  async close(request: EndGroupV1Request): Promise<GroupV1> {
    const outcome = await this.transition(
      (transaction) => transaction.lockById(request.groupId),
      (snapshot, now) => closeGroup(snapshot, request.reason, now),
    );
    if (!outcome) throw ContractError.notFound('Group', request.groupId);
    return toGroupV1(outcome.record);
  }

  /** Applies a scheduler's task report to the group's ledger (idempotent: redeliveries change nothing). */
  async applyTaskUpdate(task: TaskV1): Promise<void> {
    const outcome = await this.transition(
      (transaction) => transaction.lockById(task.groupId),
      (snapshot, now) =>
        applyTaskUpdate(
          snapshot,
          {
            taskId: task.id,
            state: task.state,
            result: task.result ?? null,
            statusMessage: task.statusMessage ?? null,
            updatedAt: task.updatedAt,
          },
          now,
        ),
    );
    if (!outcome) {
      this.logger.warn(`Ignoring an update of task ${task.id}: group ${task.groupId} does not exist here`);
    } else if (outcome.decision.outcome === 'unchanged' && outcome.decision.suspicious) {
      this.logger.warn(`Ignoring an update of task ${task.id}: ${outcome.decision.why}`);
    }
  }

  hasOverdueTurn(): Promise<boolean> {
    return this.groups.hasOverdueTurn(new Date());
  }

  /**
   * Times out the most overdue turn of any group not locked by someone else, if there is one; says whether it found
   * one, so the sweeper can loop until none is left.
   */
  async timeOutNextOverdueTurn(): Promise<boolean> {
    const now = new Date();
    const outcome = await this.transition(
      (transaction) => transaction.lockNextOverdue(now),
      (snapshot) => timeOutTurn(snapshot, now),
      async (transaction, group, why) => {
        // Cannot happen while the deadline invariant holds (a deadline runs only while an agent may move); clearing
        // it keeps one broken row from being picked first on every sweep.
        this.logger.warn(`Clearing the turn deadline of group ${group.id}: ${why}`);
        await transaction.updateGroup(group.id, { turnDeadline: null });
      },
    );
    return outcome !== null;
  }

  private async transition(
    lock: (transaction: GroupsTransaction) => Promise<GroupEntity | null>,
    decide: (snapshot: ConversationSnapshot, now: Date) => Decision,
    onUnchanged?: (transaction: GroupsTransaction, group: GroupEntity, why: string) => Promise<void>,
  ): Promise<Outcome | null> {
    // One unit of work: it resolves once the transition's events are out, so the reply follows them.
    return this.groups.transaction(async (transaction): Promise<Outcome | null> => {
      const group = await lock(transaction);
      if (!group) return null;
      const record = await transaction.record(group);
      const now = new Date();
      const decision = decide(toSnapshot(record), now);
      switch (decision.outcome) {
        case 'rejected':
          // Rolls the transaction back; the member gets the reason and the rule it broke.
          throw new ContractError(decision.code, decision.reason, { rule: decision.rule });
        case 'unchanged':
          await onUnchanged?.(transaction, group, decision.why);
          return { decision, record, messages: [] };
        case 'transition':
          return { decision, ...(await this.writer.write(transaction, record, decision, now)) };
      }
    });
  }
}
