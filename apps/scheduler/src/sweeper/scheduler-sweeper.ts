import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GroupEventsService } from '../goals/group-events.service.js';
import { TeamFormation } from '../goals/team-formation.service.js';
import { Budgets } from '../lifecycle/budgets.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { schedulerConfig } from '../scheduler.config.js';
import { TaskDispatcher } from '../tasks/task-dispatcher.js';
import { TasksService } from '../tasks/tasks.service.js';

/** The sweep's name in `@nestjs/schedule`'s registry. */
export const SCHEDULER_SWEEP = 'scheduler-sweep';

/**
 * The scheduler's clock: every `SCHEDULER_SWEEP_INTERVAL_MS` it resumes stalled team formations, starts due task
 * deliveries, fails tasks past their deadline, enforces time budgets, finishes follow-ups of ended goals (group
 * close, sub-goals, parent tasks) and gives up on group messages that never came (`events/group-feed.ts`); the
 * outbox relay retries its events on its own timer, at the same interval. Each step is idempotent and safe with
 * replicas, and the first sweep runs at boot — which is what resumes work a crash left behind. Sweeps never
 * overlap: a tick while one runs is skipped.
 *
 * The interval is registered with `@nestjs/schedule` (which clears it at shutdown) rather than declared with
 * `@Interval`, because its period comes from the validated configuration, not a constant.
 */
@Injectable()
export class SchedulerSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SchedulerSweeper.name);
  private sweeping: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly formation: TeamFormation,
    private readonly dispatcher: TaskDispatcher,
    private readonly tasks: TasksService,
    private readonly budgets: Budgets,
    private readonly lifecycle: GoalLifecycle,
    private readonly groupEvents: GroupEventsService,
    private readonly schedules: SchedulerRegistry,
    @Inject(schedulerConfig.KEY) private readonly config: ConfigType<typeof schedulerConfig>,
  ) {}

  onApplicationBootstrap(): void {
    const timer = setInterval(() => this.tick(), this.config.sweepIntervalMs);
    timer.unref();
    this.schedules.addInterval(SCHEDULER_SWEEP, timer);
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    this.sweeping ??= this.sweep().finally(() => {
      this.sweeping = undefined;
    });
  }

  /** One pass over everything time-driven. A failing step is logged and does not stop the others. */
  async sweep(): Promise<void> {
    const steps: Array<[string, () => Promise<void>]> = [
      ['team formation', () => this.formation.resumeStalled()],
      ['deliveries', () => this.dispatcher.dispatchDue()],
      ['deadlines', () => this.tasks.expireDeadlines()],
      ['budgets', () => this.budgets.enforceBudgets()],
      ['follow-ups', () => this.lifecycle.reconcile()],
      ['group gaps', () => this.groupEvents.releaseOverdue()],
    ];
    for (const [name, step] of steps) {
      if (this.stopped) return;
      try {
        await step();
      } catch (error) {
        this.logger.warn(`Sweep step "${name}" failed: ${(error as Error)?.message ?? error}`);
      }
    }
  }

  /** `@nestjs/schedule` has cleared the interval by now (before shutdown); the sweep under way is let finish. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.sweeping;
  }
}
