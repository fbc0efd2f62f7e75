import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ContractError,
  PostUserMessageV1,
  TERMINAL_TASK_STATES,
  type CancelGoalV1Request,
  type GoalV1,
  type ListGoalEventsV1Request,
  type ListGoalEventsV1Response,
  type PostGoalMessageV1Request,
  type SubmitGoalV1Request,
} from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { GoalEventLog } from '../events/goal-event-log.js';
import { GoalChanges } from '../lifecycle/goal-changes.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { TaskChanges } from '../lifecycle/task-changes.js';
import { Transactions, type UnitOfWork } from '../persistence/unit-of-work.js';
import { TaskEntity } from '../tasks/task.entity.js';
import { ENDED_GOAL_STATUSES, FORMING_GOAL_STATUSES, GoalEntity } from './goal.entity.js';
import { toGoalV1 } from './goal.mapper.js';
import { TeamFormation } from './team-formation.service.js';

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
  ) {}

  /**
   * Stores the goal (`submitted`) and replies at once; the team forms in the background. A goal with
   * `parentTaskId` is a sub-team's goal: one level deeper than the parent task's goal, refused beyond `maxDepth`.
   */
  async submit(request: SubmitGoalV1Request, idempotencyKey?: string): Promise<GoalV1> {
    if (idempotencyKey) {
      const earlier = await this.findByIdempotencyKey(idempotencyKey);
      if (earlier) return this.get(earlier.id);
    }
    let goal: GoalEntity;
    try {
      goal = await this.createGoal(request, idempotencyKey ?? null);
    } catch (error) {
      // Two retries racing with the same key: the unique index lets one insert win; the other returns its goal.
      const winner = idempotencyKey ? await this.findByIdempotencyKey(idempotencyKey) : null;
      if (!winner) throw error;
      return this.get(winner.id);
    }
    if (goal.status === 'submitted') this.formation.start(goal.id);
    return this.get(goal.id);
  }

  private findByIdempotencyKey(idempotencyKey: string): Promise<GoalEntity | null> {
    return this.transactions.manager.findOneBy(GoalEntity, { idempotencyKey });
  }

  private createGoal(request: SubmitGoalV1Request, idempotencyKey: string | null): Promise<GoalEntity> {
    return this.transactions.run(async (unit) => {
      const now = new Date();
      const goal = unit.manager.create(GoalEntity, {
        id: randomUUID(),
        goal: request.goal,
        idempotencyKey,
        status: 'submitted',
        statusReason: null,
        requestedMembers: request.members?.length ? [...new Set(request.members.map((member) => member.trim()))] : null,
        team: [],
        groupId: null,
        conclusion: null,
        maxTurns: request.maxTurns,
        depth: 0,
        maxDepth: request.maxDepth,
        parentTaskId: null,
        parentGoalId: null,
        budgetTokens: request.budget?.tokens ?? null,
        budgetSeconds: request.budget?.seconds ?? null,
        promptTokens: 0,
        completionTokens: 0,
        modelCalls: 0,
        roundStartedAt: now,
        roundStartTokens: 0,
        conclusionForcedAt: null,
        waitingForUser: false,
        formationLeaseUntil: null,
        groupClosedAt: null,
        lastEventSeq: 0,
        createdAt: now,
        updatedAt: now,
        endedAt: null,
      });
      if (request.parentTaskId) {
        const existing = await this.attachToParentTask(unit, goal, request.parentTaskId);
        if (existing) return existing;
      }
      await unit.manager.insert(GoalEntity, goal);
      await this.goals.recordStatus(unit, goal, null);
      return goal;
    });
  }

  /**
   * Links a new sub-goal to its parent task (depth, max depth, parent ids) and records the link on the task. When
   * the task already has a sub-goal, returns that one: a retried submit does not form a second sub-team.
   */
  private async attachToParentTask(
    unit: UnitOfWork,
    goal: GoalEntity,
    parentTaskId: string,
  ): Promise<GoalEntity | null> {
    const probe = await unit.manager.findOneBy(TaskEntity, { id: parentTaskId });
    if (!probe) throw ContractError.notFound('Task', parentTaskId);
    const parent = await unit.lockGoal(probe.goalId);
    const task = await unit.manager.findOneBy(TaskEntity, { id: parentTaskId });
    if (!parent || !task) throw ContractError.notFound('Task', parentTaskId);
    if (task.childGoalId) {
      const existing = await unit.manager.findOneBy(GoalEntity, { id: task.childGoalId });
      if (existing) return existing;
    }
    if (TERMINAL_TASK_STATES.includes(task.state)) {
      throw new ContractError('INVALID_STATE', `Task ${task.id} is already ${task.state}; it cannot get a sub-team`, {
        taskId: task.id,
        state: task.state,
      });
    }
    if (parent.depth + 1 > parent.maxDepth) {
      throw new ContractError(
        'INVALID_STATE',
        `Sub-teams may nest at most ${parent.maxDepth} deep and this task's goal is at depth ${parent.depth}: do the task without a sub-team`,
        { depth: parent.depth, maxDepth: parent.maxDepth },
      );
    }
    goal.depth = parent.depth + 1;
    goal.maxDepth = parent.maxDepth;
    goal.parentTaskId = task.id;
    goal.parentGoalId = parent.id;
    await this.tasks.change(unit, parent, task, { childGoalId: goal.id });
    return null;
  }

  async get(goalId: string): Promise<GoalV1> {
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: goalId });
    if (!goal) throw ContractError.notFound('Goal', goalId);
    const tasks = await this.transactions.manager.find(TaskEntity, { where: { goalId }, order: { createdAt: 'ASC' } });
    return toGoalV1(goal, tasks);
  }

  /** Cancels the goal: group closed, open tasks and sub-goals canceled. Canceling a canceled goal changes nothing. */
  async cancel(request: CancelGoalV1Request): Promise<GoalV1> {
    await this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(request.goalId);
      if (!goal) throw ContractError.notFound('Goal', request.goalId);
      if (goal.status === 'canceled') return;
      if (ENDED_GOAL_STATUSES.includes(goal.status)) {
        throw new ContractError(
          'INVALID_STATE',
          `Goal ${goal.id} has already ${goal.status}; there is nothing to cancel`,
          {
            status: goal.status,
          },
        );
      }
      goal.formationLeaseUntil = null;
      await this.lifecycle.end(unit, goal, { status: 'canceled', reason: request.reason });
    });
    return this.get(request.goalId);
  }

  /**
   * A person joins the conversation: the message goes to the group (chat re-opens a concluded group), and the goal
   * is `working` again — a follow-up to a completed goal starts a new round with fresh budgets.
   */
  async postMessage(request: PostGoalMessageV1Request): Promise<GoalV1> {
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: request.goalId });
    if (!goal) throw ContractError.notFound('Goal', request.goalId);
    if (goal.status === 'failed' || goal.status === 'canceled') {
      throw new ContractError('INVALID_STATE', `Goal ${goal.id} has ${goal.status}; submit a new goal instead`, {
        status: goal.status,
      });
    }
    if (FORMING_GOAL_STATUSES.includes(goal.status) || goal.groupId === null) {
      throw new ContractError(
        'INVALID_STATE',
        `Goal ${goal.id} is still forming its team; post again once it is working`,
        {
          status: goal.status,
        },
      );
    }
    await this.client.request(PostUserMessageV1, {
      groupId: goal.groupId,
      content: request.content,
      author: request.author,
    });
    await this.transactions.run(async (unit) => {
      const locked = await unit.lockGoal(goal.id);
      if (locked) await this.lifecycle.resume(unit, locked);
    });
    return this.get(goal.id);
  }

  async listEvents(request: ListGoalEventsV1Request): Promise<ListGoalEventsV1Response> {
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: request.goalId });
    if (!goal) throw ContractError.notFound('Goal', request.goalId);
    const items = await this.log.list(goal.id, request.afterSeq, request.limit);
    return { items, lastSeq: goal.lastEventSeq };
  }
}
