import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import {
  AssignTaskV1,
  ContractError,
  isEndedGoalStatus,
  subjectFor,
  type ModelUsageV1,
  type TaskAssignmentV1Response,
  type TaskBriefV1,
} from '@ioa/contracts';
import { Transactions } from '@ioa/database';
import { ContractClient } from '@ioa/messaging';
import { GoalEntity } from '../goals/goal.entity.js';
import { lockGoal } from '../goals/goal-lock.js';
import { usageSpent } from '../goals/goal-state-machine.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { TaskChanges } from '../lifecycle/task-changes.js';
import { schedulerConfig } from '../scheduler.config.js';
import { TaskBriefs } from './task-briefs.js';
import { deliveryAcknowledged, deliveryFailed, startDelivery, type DeliveryPolicy } from './task-state-machine.js';
import { TaskEntity } from './task.entity.js';

const CLAIM_BATCH = 50;

type Delivery = { ok: true } | { ok: false; reason: string };

/**
 * Delivers submitted tasks to their assignees over `ioa.agent.<id>.task.v1` (a request the agent only
 * acknowledges; results come later through `ReportTaskV1`). A delivery nobody answers, or that the agent declines,
 * is retried with exponential backoff up to `SCHEDULER_DISPATCH_ATTEMPTS`, then the task fails — nothing waits for
 * an agent that is not there.
 *
 * Due deliveries are found through `next_dispatch_at` and claimed with `FOR UPDATE SKIP LOCKED` (the claim pushes
 * the time forward by a lease), so replicas never deliver the same attempt twice and a crash mid-delivery only
 * delays it.
 */
@Injectable()
export class TaskDispatcher implements OnApplicationShutdown {
  private readonly logger = new Logger(TaskDispatcher.name);
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly deliveries = new Set<Promise<void>>();

  constructor(
    private readonly transactions: Transactions,
    private readonly tasks: TaskChanges,
    private readonly lifecycle: GoalLifecycle,
    private readonly briefs: TaskBriefs,
    private readonly client: ContractClient,
    @Inject(schedulerConfig.KEY) private readonly config: ConfigType<typeof schedulerConfig>,
  ) {}

  /** Looks for due deliveries now (after tasks were stored or re-assigned), without waiting. */
  kick(): void {
    void this.dispatchDue();
  }

  /** Claims every due delivery and starts it; deliveries run concurrently and are not awaited here. */
  dispatchDue(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          let claimed: string[];
          do {
            claimed = this.stopped ? [] : await this.claimDue();
            for (const taskId of claimed) this.track(this.deliver(taskId));
          } while (claimed.length === CLAIM_BATCH);
        } while (this.again && !this.stopped);
      } catch (error) {
        this.logger.warn(`Claiming due deliveries failed, will retry: ${(error as Error)?.message ?? error}`);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private track(delivery: Promise<void>): void {
    const tracked = delivery.catch((error: unknown) =>
      this.logger.error(`A task delivery failed unexpectedly: ${String((error as Error)?.stack ?? error)}`),
    );
    this.deliveries.add(tracked);
    void tracked.finally(() => this.deliveries.delete(tracked));
  }

  private async claimDue(): Promise<string[]> {
    const result: unknown = await this.transactions.manager.query(
      `UPDATE "scheduler"."tasks" SET "next_dispatch_at" = now() + make_interval(secs => $1)
        WHERE "id" IN (
          SELECT "id" FROM "scheduler"."tasks"
           WHERE "next_dispatch_at" <= now() AND "state" = 'submitted'
           ORDER BY "next_dispatch_at" LIMIT ${CLAIM_BATCH}
           FOR UPDATE SKIP LOCKED)
        RETURNING "id"`,
      [this.config.leaseSeconds],
    );
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const rows = (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  private async deliver(taskId: string): Promise<void> {
    const task = await this.transactions.manager.findOneBy(TaskEntity, { id: taskId });
    if (!task || task.state !== 'submitted') return;
    const goal = await this.transactions.manager.findOneBy(GoalEntity, { id: task.goalId });
    if (!goal || isEndedGoalStatus(goal.status)) return;

    let brief = task.brief;
    let usage: ModelUsageV1 | undefined;
    if (brief === null) {
      const written = await this.briefs.write(task, goal);
      brief = written.value;
      usage = written.usage;
    }
    const started = await this.startAttempt(taskId, brief, usage);
    if (!started) return;
    const { task: attempt, goal: owner } = started;

    const outcome = await this.send(attempt, owner);
    if (outcome.ok) {
      await this.acknowledged(taskId);
      return;
    }
    await this.attemptFailed(taskId, outcome.reason);
  }

  /** Records the brief and the attempt before the agent can see the task. Null when it is no longer to deliver. */
  private async startAttempt(
    taskId: string,
    brief: TaskBriefV1,
    usage: ModelUsageV1 | undefined,
  ): Promise<{ task: TaskEntity; goal: GoalEntity } | null> {
    return this.transactions.run(async (unit) => {
      const probe = await unit.manager.findOneBy(TaskEntity, { id: taskId });
      if (!probe) return null;
      const goal = await lockGoal(unit, probe.goalId);
      const task = await unit.manager.findOneBy(TaskEntity, { id: taskId });
      if (!goal || !task) return null;
      const now = new Date();
      const decision = startDelivery(task, brief, this.policy(), now);
      if (decision.outcome !== 'transition') return null;
      await this.tasks.write(unit, goal, task, decision);
      if (usage) await this.lifecycle.apply(unit, goal, usageSpent(goal, usage, now));
      return { task, goal };
    });
  }

  private async send(task: TaskEntity, goal: GoalEntity): Promise<Delivery> {
    const contract = { ...AssignTaskV1, subject: subjectFor(AssignTaskV1, task.assigneeId) };
    try {
      const answer: TaskAssignmentV1Response = await this.client.request(
        contract,
        {
          taskId: task.id,
          goalId: task.goalId,
          groupId: task.groupId,
          agentId: task.assigneeId,
          brief: task.brief as TaskBriefV1,
          deadline: task.deadline.toISOString(),
          depth: goal.depth,
          maxDepth: goal.maxDepth,
          attempt: task.attempts,
        },
        { timeoutMs: this.config.dispatchTimeoutMs, idempotencyKey: `${task.id}:${task.attempts}` },
      );
      if (answer?.accepted === true) return { ok: true };
      const reason = typeof answer?.reason === 'string' && answer.reason ? answer.reason : 'no reason given';
      return { ok: false, reason: `${task.assigneeName} declined the task: ${reason}` };
    } catch (error) {
      if (error instanceof ContractError && error.code === 'UNAVAILABLE') {
        return { ok: false, reason: `${task.assigneeName} is not answering on its task subject` };
      }
      if (error instanceof ContractError && error.code === 'TIMEOUT') {
        return {
          ok: false,
          reason: `${task.assigneeName} did not acknowledge within ${this.config.dispatchTimeoutMs} ms`,
        };
      }
      return {
        ok: false,
        reason: `${task.assigneeName} answered with an error: ${(error as Error)?.message ?? error}`,
      };
    }
  }

  /** The assignee has the task: no further attempt is due (unless it reported meanwhile, which said so already). */
  private async acknowledged(taskId: string): Promise<void> {
    await this.transactions.run(async (unit) => {
      const probe = await unit.manager.findOneBy(TaskEntity, { id: taskId });
      if (!probe) return;
      const goal = await lockGoal(unit, probe.goalId);
      const task = await unit.manager.findOneBy(TaskEntity, { id: taskId });
      if (!goal || !task) return;
      const decision = deliveryAcknowledged(task);
      if (decision.outcome === 'transition') await this.tasks.write(unit, goal, task, decision);
    });
  }

  private async attemptFailed(taskId: string, reason: string): Promise<void> {
    await this.transactions.run(async (unit) => {
      const probe = await unit.manager.findOneBy(TaskEntity, { id: taskId });
      if (!probe) return;
      const goal = await lockGoal(unit, probe.goalId);
      const task = await unit.manager.findOneBy(TaskEntity, { id: taskId });
      if (!goal || !task) return;
      // The agent may have reported meanwhile (a slow acknowledgement): then it did get the task (unchanged).
      const decision = deliveryFailed(task, reason, this.policy(), new Date());
      if (decision.outcome !== 'transition') return;
      if (decision.task.state === 'failed') {
        this.logger.log(`Task ${task.id} failed: undeliverable after ${task.attempts} attempts (${reason})`);
      }
      await this.tasks.write(unit, goal, task, decision);
    });
  }

  private policy(): DeliveryPolicy {
    return { attempts: this.config.dispatchAttempts, backoffMs: this.config.dispatchBackoffMs };
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.allSettled([...this.deliveries]);
  }
}
