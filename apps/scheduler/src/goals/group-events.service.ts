import { Injectable, Logger } from '@nestjs/common';
import type { GroupStateChangedV1Event, MessagePostedV1Event } from '@ioa/contracts';
import { Transactions } from '@ioa/database';
import { GoalEventLog } from '../events/goal-event-log.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { lockGoal } from './goal-lock.js';
import { groupStateChanged, messagePosted } from './goal-state-machine.js';

/**
 * What the goal learns from its group chat (chat's JetStream events, consumed durably and in order): every message
 * and group change goes into the goal's event log, and the goal state machine decides what it means for the goal
 * (usage and budgets, the person being asked, the group concluding or failing). Each event is recorded under a
 * source key, so a redelivered one has no second effect.
 */
@Injectable()
export class GroupEventsService {
  private readonly logger = new Logger(GroupEventsService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly lifecycle: GoalLifecycle,
    private readonly log: GoalEventLog,
  ) {}

  async onMessagePosted(event: MessagePostedV1Event): Promise<void> {
    const { message } = event;
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, event.goalId);
      if (!goal) return this.logger.warn(`Message ${message.id} names unknown goal ${event.goalId}; ignored`);
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
    });
  }

  /**
   * `redelivered` is JetStream's flag: the end of a group waits once for its messages (below), not more, so a
   * message that never comes cannot hold the goal.
   */
  async onGroupStateChanged(event: GroupStateChangedV1Event, redelivered = false): Promise<void> {
    const { group } = event;
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, group.goalId);
      if (!goal) return this.logger.warn(`Group ${group.id} names unknown goal ${group.goalId}; ignored`);
      // Messages and state changes come through different consumers, so the concluding message can arrive after
      // the conclusion. The goal's log (and its event stream, which ends with the goal) must hold every message
      // first: until it does, the event is handed back for redelivery after the first backoff step.
      if ((group.state === 'concluded' || group.state === 'failed') && !redelivered) {
        const logged = await this.log.countGroupMessages(unit, goal.id, group.id, group.lastSeq);
        if (logged < group.lastSeq) {
          throw new Error(
            `group ${group.id} ${group.state} after message ${group.lastSeq}, but ${logged} of its messages are ` +
              'logged yet; handled again once they are',
          );
        }
      }
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
    });
  }
}
