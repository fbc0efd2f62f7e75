import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import {
  ContractError,
  PostUserMessageV1,
  type CancelGoalV1Request,
  type GoalV1,
  type ListGoalEventsV1Request,
  type ListGoalEventsV1Response,
  type PostGoalMessageV1Request,
  type Principal,
  type SubmitGoalV1Request,
} from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { Transactions, type UnitOfWork } from '@ioa/database';
import { GoalEventLog } from '../events/goal-event-log.js';
import { GoalChanges } from '../lifecycle/goal-changes.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { TaskChanges } from '../lifecycle/task-changes.js';
import { attachSubGoal } from '../tasks/task-state-machine.js';
import { TaskEntity } from '../tasks/task.entity.js';
import { GoalEntity } from './goal.entity.js';
import { lockGoal } from './goal-lock.js';
import { cancelGoal, checkPostMessage, personPosted, submitGoal, type GoalSubmission } from './goal-state-machine.js';
import { toGoalV1 } from './goal.mapper.js';
import { TeamFormation } from './team-formation.service.js';
import { schedulerConfig, type SchedulerConfig } from '../scheduler.config.js';

/** A person's account sees its own goals; an admin, and a platform service acting for itself (no principal), all. */
function mayAccess(goal: GoalEntity, principal: Principal | undefined): boolean {
  return !principal || principal.role === 'admin' || goal.accountId === principal.accountId;
}

/** The goal use cases behind the scheduler's request subjects. */
@Injectable()
export class GoalsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly goals: GoalChanges,
    private readonly tasks: TaskChanges,
    private readonly lifecycle: GoalLifecycle,
    private readonly log: GoalEventLog,
    private readonly formation: TeamFormation,
    private readonly client: ContractClient,
    @Inject(schedulerConfig.KEY) private readonly config: SchedulerConfig,
  ) {}

  /**
   * Stores the goal (`submitted`) and replies at once; the team forms in the background. A goal with
   * `parentTaskId` is a sub-team's goal: one level deeper than the parent task's goal, refused beyond `maxDepth`.
   */
  async submit(request: SubmitGoalV1Request, idempotencyKey?: string, principal?: Principal): Promise<GoalV1> {
    const accountId = principal?.accountId ?? null;
    if (idempotencyKey) {
      const earlier = await this.findByIdempotencyKey(accountId, idempotencyKey);
      if (earlier) return this.get(earlier.id);
    }
    let stored: { goal: GoalEntity; created: boolean };
    try {
      stored = await this.createGoal(request, idempotencyKey ?? null, accountId);
    } catch (error) {
      // Two retries racing with the same key: the unique index lets one insert win; the other returns its goal.
      const winner = idempotencyKey ? await this.findByIdempotencyKey(accountId, idempotencyKey) : null;
      if (!winner) throw error;
      return this.get(winner.id);
    }
    if (!stored.created) return this.get(stored.goal.id); // a retried sub-team submit: the sub-goal as it is now
    // The reply is the goal as committed (submitted, no tasks yet), not re-read: the sweeper may already be forming
    // its team.
    const submitted = toGoalV1(stored.goal, []);
    this.formation.start(stored.goal.id);
    return submitted;
  }

  /** Keys are per account: the same key from another account is another goal. */
  private findByIdempotencyKey(accountId: string | null, idempotencyKey: string): Promise<GoalEntity | null> {
    return this.transactions.manager.findOneBy(GoalEntity, { accountId: accountId ?? IsNull(), idempotencyKey });
  }

  private createGoal(
    request: SubmitGoalV1Request,
    idempotencyKey: string | null,
    accountId: string | null,
  ): Promise<{ goal: GoalEntity; created: boolean }> {
    return this.transactions.run(async (unit) => {
      const id = randomUUID();
      let parent: GoalSubmission['parent'] = null;
      if (request.parentTaskId) {
        const attached = await this.attachToParentTask(unit, id, request.parentTaskId);
        if (attached.existing) return { goal: attached.existing, created: false };
        parent = attached.parent;
      } else if (accountId !== null) {
        await this.checkOpenGoalQuota(unit, accountId);
      }
      const submission: GoalSubmission = {
        goal: request.goal,
        members: request.members,
        maxTurns: request.maxTurns,
        maxDepth: request.maxDepth,
        budget: request.budget,
        idempotencyKey,
        accountId,
        parent,
      };
      const creation = submitGoal(id, submission, new Date());
      const goal = unit.manager.create(GoalEntity, creation.goal);
      await this.goals.create(unit, goal, creation);
      return { goal, created: true };
    });
  }

  /**
   * Links a new sub-goal to its parent task (the task records the link) and says what the sub-goal inherits. When
   * the task already has a sub-goal, returns that one: a retried submit does not form a second sub-team.
   */
  private async attachToParentTask(
    unit: UnitOfWork,
    goalId: string,
    parentTaskId: string,
  ): Promise<{ existing: GoalEntity; parent?: never } | { existing?: never; parent: GoalSubmission['parent'] }> {
    const probe = await unit.manager.findOneBy(TaskEntity, { id: parentTaskId });
    if (!probe) throw ContractError.notFound('Task', parentTaskId);
    const parent = await lockGoal(unit, probe.goalId);
    const task = await unit.manager.findOneBy(TaskEntity, { id: parentTaskId });
    if (!parent || !task) throw ContractError.notFound('Task', parentTaskId);
    if (task.childGoalId) {
      const existing = await unit.manager.findOneBy(GoalEntity, { id: task.childGoalId });
      if (existing) return { existing };
    }
    const decision = attachSubGoal(task, parent, goalId, new Date());
    if (decision.outcome === 'rejected') {
      throw new ContractError(decision.code, decision.reason, {
        rule: decision.rule,
        taskId: task.id,
        state: task.state,
        depth: parent.depth,
        maxDepth: parent.maxDepth,
      });
    }
    if (decision.outcome === 'transition') await this.tasks.write(unit, parent, task, decision);
    const { id, depth, maxDepth, accountId } = parent;
    return { parent: { goalId: id, taskId: task.id, depth, maxDepth, accountId } };
  }

  /**
   * A top-level goal is refused once the account has `maxOpenGoalsPerAccount` open; an advisory lock on the account
   * makes two racing submits count each other.
   */
  private async checkOpenGoalQuota(unit: UnitOfWork, accountId: string): Promise<void> {
    await unit.manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`scheduler.goal-quota:${accountId}`]);
    const open = await unit.manager.count(GoalEntity, {
      where: { accountId, endedAt: IsNull(), parentGoalId: IsNull() },
    });
    const limit = this.config.maxOpenGoalsPerAccount;
    if (open >= limit) {
      throw new ContractError(
        'QUOTA_EXCEEDED',
        `Account ${accountId} already has ${open} open goals (at most ${limit}); cancel one or wait for one to end`,
        { accountId, open, limit },
      );
    }
  }

  /**
   * The goal, if the principal may see it: its own account's, or any for an admin or a platform service (no
   * principal). Another account's goal is NOT_FOUND, exactly like a missing one, so ids do not reveal existence.
   */
  private async visibleGoal(goalId: string, principal: Principal | undefined): Promise<GoalEntity> {
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: goalId });
    if (!goal || !mayAccess(goal, principal)) throw ContractError.notFound('Goal', goalId);
    return goal;
  }

  async get(goalId: string, principal?: Principal): Promise<GoalV1> {
    const goal = await this.visibleGoal(goalId, principal);
    const tasks = await this.transactions.manager.find(TaskEntity, { where: { goalId }, order: { createdAt: 'ASC' } });
    return toGoalV1(goal, tasks);
  }

  /** Cancels the goal: group closed, open tasks and sub-goals canceled. Canceling a canceled goal changes nothing. */
  async cancel(request: CancelGoalV1Request, principal?: Principal): Promise<GoalV1> {
    await this.visibleGoal(request.goalId, principal);
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, request.goalId);
      if (!goal) throw ContractError.notFound('Goal', request.goalId);
      await this.lifecycle.apply(unit, goal, cancelGoal(goal, request.reason, new Date()));
    });
    return this.get(request.goalId);
  }

  /**
   * A person joins the conversation: the message goes to the group (chat re-opens a concluded group), and the goal
   * is `working` again — a follow-up to a completed goal starts a new round with fresh budgets.
   */
  async postMessage(request: PostGoalMessageV1Request, principal?: Principal): Promise<GoalV1> {
    const goal = await this.visibleGoal(request.goalId, principal);
    const allowed = checkPostMessage(goal);
    if (allowed.outcome === 'rejected') {
      throw new ContractError(allowed.code, allowed.reason, { rule: allowed.rule, status: goal.status });
    }
    await this.client.request(PostUserMessageV1, {
      groupId: allowed.groupId,
      content: request.content,
      author: request.author,
    });
    await this.transactions.run(async (unit) => {
      const locked = await lockGoal(unit, goal.id);
      if (locked) await this.lifecycle.apply(unit, locked, personPosted(locked, new Date()));
    });
    return this.get(goal.id);
  }

  async listEvents(request: ListGoalEventsV1Request, principal?: Principal): Promise<ListGoalEventsV1Response> {
    const goal = await this.visibleGoal(request.goalId, principal);
    const items = await this.log.list(goal.id, request.afterSeq, request.limit);
    return { items, lastSeq: goal.lastEventSeq };
  }
}
