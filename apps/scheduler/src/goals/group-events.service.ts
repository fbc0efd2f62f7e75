import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { LessThan } from 'typeorm';
import {
  ContractError,
  GetGroupV1,
  type GroupStateChangedV1Event,
  type GroupV1,
  type MessagePostedV1Event,
} from '@ioa/contracts';
import { Transactions, type UnitOfWork } from '@ioa/database';
import { ContractClient } from '@ioa/messaging';
import { GoalEventLog } from '../events/goal-event-log.js';
import { groupIdOf, orderGroupEvents, type GroupFeedEvent } from '../events/group-feed.js';
import { GroupFeedEntity } from '../events/group-feed.entity.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { schedulerConfig } from '../scheduler.config.js';
import type { GoalEntity } from './goal.entity.js';
import { lockGoal } from './goal-lock.js';
import { groupStateChanged, messagePosted } from './goal-state-machine.js';

/**
 * What the goal learns from its group chat (chat's JetStream events): every message and group change goes into the
 * goal's event log, and the goal state machine decides what it means for the goal (usage and budgets, the person
 * being asked, the group concluding or failing).
 *
 * Messages and state changes come through different consumers, shared by replicas, so they arrive in any order;
 * the group's feed (`group-feed.ts`) puts them back in chat's order in the same transaction, holding an early one
 * (acknowledged, in the database) until the ones before it are in — so the concluding message is logged before the
 * goal completes, without waiting for a redelivery. Each event is recorded under a source key, so a redelivered one
 * has no second effect.
 */
/** Group states that end the goal: checked with chat before they are believed. */
const ENDING_STATES: ReadonlySet<string> = new Set(['concluded', 'failed']);

@Injectable()
export class GroupEventsService {
  private readonly logger = new Logger(GroupEventsService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly lifecycle: GoalLifecycle,
    private readonly log: GoalEventLog,
    private readonly client: ContractClient,
    @Inject(schedulerConfig.KEY) private readonly config: ConfigType<typeof schedulerConfig>,
  ) {}

  onMessagePosted(event: MessagePostedV1Event): Promise<void> {
    return this.receive(event.goalId, { kind: 'message', event });
  }

  async onGroupStateChanged(event: GroupStateChangedV1Event): Promise<void> {
    if (ENDING_STATES.has(event.group.state) && !(await this.chatConfirms(event))) return;
    return this.receive(event.group.goalId, { kind: 'state', event });
  }

  /**
   * A group's end completes or fails its goal, so it is believed only when chat, which owns the group's state, says
   * the same: one request per group end. The broker already lets only chat publish the event; this makes a forged
   * one harmless where it would not (a broker without authentication, a leaked credential). A chat that cannot be
   * asked makes the event retry (its consumer's backoff), never pass unchecked.
   */
  private async chatConfirms(event: GroupStateChangedV1Event): Promise<boolean> {
    const { group } = event;
    let current: GroupV1;
    try {
      current = await this.client.request(GetGroupV1, { groupId: group.id });
    } catch (error) {
      if (!(error instanceof ContractError) || error.code !== 'NOT_FOUND') throw error;
      this.logger.warn(`Refused a "${group.state}" event of group ${group.id}: chat has no such group`);
      return false;
    }
    // A concluded group may have been re-opened by a follow-up since: its conclusion is what must match.
    const confirmed =
      current.goalId === group.goalId &&
      (group.state === 'concluded' ? current.conclusion === group.conclusion : current.state === group.state);
    if (!confirmed) {
      this.logger.warn(
        `Refused a "${group.state}" event of group ${group.id} (goal ${group.goalId}): chat says the group is ` +
          `${current.state} for goal ${current.goalId}`,
      );
    }
    return confirmed;
  }

  /** The sweeper's part: feeds whose gap has held events for the gap timeout are released (the gap given up on). */
  async releaseOverdue(): Promise<void> {
    const overdue = await this.transactions.manager.find(GroupFeedEntity, {
      where: { heldSince: LessThan(new Date(Date.now() - this.config.groupGapTimeoutMs)) },
      select: { groupId: true, goalId: true },
      take: 50,
    });
    for (const { groupId, goalId } of overdue) {
      await this.transactions.run(async (unit) => {
        const goal = await lockGoal(unit, goalId);
        if (goal) await this.advance(unit, goal, groupId, null);
      });
    }
  }

  private async receive(goalId: string, arrival: GroupFeedEvent): Promise<void> {
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, goalId);
      if (!goal) return this.logger.warn(`Group ${groupIdOf(arrival)} names unknown goal ${goalId}; ignored`);
      await this.advance(unit, goal, groupIdOf(arrival), arrival);
    });
  }

  /** Decides what of the group's feed can be applied now, applies it in order, and stores the feed. */
  private async advance(
    unit: UnitOfWork,
    goal: GoalEntity,
    groupId: string,
    arrival: GroupFeedEvent | null,
  ): Promise<void> {
    const stored = await unit.manager.findOneBy(GroupFeedEntity, { groupId });
    const feed = stored ?? { loggedSeq: 0, held: [] };
    const decision = orderGroupEvents(feed, arrival, new Date(), this.config.groupGapTimeoutMs);
    if (decision.skipped.length > 0) {
      this.logger.warn(
        `Goal ${goal.id}: messages ${decision.skipped.join(', ')} of group ${groupId} did not arrive within ` +
          `${this.config.groupGapTimeoutMs} ms; the group's later events are logged without them`,
      );
    }
    for (const next of decision.release) {
      if (next.kind === 'message') await this.applyMessage(unit, goal, next.event);
      else await this.applyStateChange(unit, goal, next.event);
    }
    const { held, loggedSeq } = decision.feed;
    const heldSince =
      held.length === 0 ? null : new Date(Math.min(...held.map((entry) => Date.parse(entry.heldSince))));
    await unit.manager.upsert(GroupFeedEntity, { groupId, goalId: goal.id, loggedSeq, held, heldSince }, ['groupId']);
  }

  private async applyMessage(unit: UnitOfWork, goal: GoalEntity, event: MessagePostedV1Event): Promise<void> {
    const { message } = event;
    if (!(await this.log.append(unit, goal, 'message', message, `message:${message.id}`))) return;
    const decision = messagePosted(
      goal,
      {
        groupId: message.groupId,
        type: message.type,
        senderId: message.senderId,
        nextSpeaker: message.nextSpeaker ?? null,
      },
      event.usage,
      new Date(),
    );
    await this.lifecycle.apply(unit, goal, decision);
  }

  private async applyStateChange(unit: UnitOfWork, goal: GoalEntity, event: GroupStateChangedV1Event): Promise<void> {
    const { group } = event;
    const key = `group:${group.id}:${group.state}:${group.turn}:${group.lastSeq}:${group.updatedAt}`;
    const data = { group, previousState: event.previousState, reason: event.reason };
    if (!(await this.log.append(unit, goal, 'group', data, key))) return;
    const change = {
      id: group.id,
      state: group.state,
      currentSpeaker: group.currentSpeaker,
      conclusion: group.conclusion,
      reason: event.reason,
      previousState: event.previousState,
    };
    await this.lifecycle.apply(unit, goal, groupStateChanged(goal, change, new Date()));
  }
}
