import { Injectable, Logger } from '@nestjs/common';
import { SYSTEM_SENDER, USER_SPEAKER, type GroupStateChangedV1Event, type MessagePostedV1Event } from '@ioa/contracts';
import { GoalEventLog } from '../events/goal-event-log.js';
import { Budgets } from '../lifecycle/budgets.js';
import { GoalChanges } from '../lifecycle/goal-changes.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { Transactions } from '../persistence/unit-of-work.js';
import { ACTIVE_GOAL_STATUSES, ENDED_GOAL_STATUSES } from './goal.entity.js';

/**
 * What the goal learns from its group chat (chat's JetStream events, consumed durably and in order): every message
 * and group change goes into the goal's event log, message usage counts towards the budget, and the group's state
 * drives the goal's — `concluded` completes it, `failed` fails it, a question to the person makes it
 * `input_required`. Each event is recorded under a source key, so a redelivered one has no second effect.
 */
@Injectable()
export class GroupEventsService {
  private readonly logger = new Logger(GroupEventsService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly goals: GoalChanges,
    private readonly lifecycle: GoalLifecycle,
    private readonly budgets: Budgets,
    private readonly log: GoalEventLog,
  ) {}

  async onMessagePosted(event: MessagePostedV1Event): Promise<void> {
    await this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(event.goalId);
      if (!goal) return this.logger.warn(`Message ${event.message.id} names unknown goal ${event.goalId}; ignored`);
      const message = event.message;
      const recorded = await this.log.append(unit, goal, 'message', message, `message:${message.id}`);
      if (!recorded) return;
      // The group's first message can overtake CreateGroupV1's reply: remember the group, so that a formation
      // resumed after a crash finds it instead of opening a second one.
      if (goal.status === 'forming_team' && goal.groupId === null) goal.groupId = message.groupId;
      this.goals.addUsage(goal, event.usage);
      if (message.type === 'user') {
        await this.lifecycle.resume(unit, goal);
      } else {
        // A member asking the person makes the conversation wait for them; any member speaking again ends that.
        if (message.nextSpeaker === USER_SPEAKER) goal.waitingForUser = true;
        else if (message.senderId !== SYSTEM_SENDER) goal.waitingForUser = false;
        await this.lifecycle.syncConversationStatus(unit, goal);
      }
      await this.budgets.check(unit, goal);
    });
  }

  async onGroupStateChanged(event: GroupStateChangedV1Event): Promise<void> {
    const group = event.group;
    await this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(group.goalId);
      if (!goal) return this.logger.warn(`Group ${group.id} names unknown goal ${group.goalId}; ignored`);
      const key = `group:${group.id}:${group.state}:${group.turn}:${group.lastSeq}:${group.updatedAt}`;
      const data = { group, previousState: event.previousState, reason: event.reason };
      if (!(await this.log.append(unit, goal, 'group', data, key))) return;
      // Chat may report on the group before the scheduler has recorded it (an agent that concludes at once).
      const forming = goal.status === 'forming_team';
      if (forming && goal.groupId === null) goal.groupId = group.id;
      const active = ACTIVE_GOAL_STATUSES.includes(goal.status) || forming;
      switch (group.state) {
        case 'concluded':
          if (active) {
            goal.formationLeaseUntil = null;
            await this.lifecycle.end(unit, goal, { status: 'completed', conclusion: group.conclusion ?? '' });
          }
          return;
        case 'failed':
          if (!ENDED_GOAL_STATUSES.includes(goal.status)) {
            goal.formationLeaseUntil = null;
            await this.lifecycle.end(unit, goal, {
              status: 'failed',
              reason: `The group chat ended: ${event.reason}`,
              groupAlreadyEnded: true,
            });
          }
          return;
        case 'concluding':
          // The turn limit (or a forced conclusion) cut the discussion short: say so, unless a budget already did.
          if (active && goal.statusReason === null) {
            goal.statusReason = event.reason;
            await this.goals.save(unit, goal);
            await this.goals.recordStatus(unit, goal, goal.status);
          }
          return;
        case 'discussing':
        case 'awaiting_sync_tasks':
        case 'paused':
          goal.waitingForUser = group.currentSpeaker === USER_SPEAKER;
          if (goal.status === 'completed')
            await this.lifecycle.resume(unit, goal); // re-opened by a follow-up
          else await this.lifecycle.syncConversationStatus(unit, goal);
          return;
      }
    });
  }
}
