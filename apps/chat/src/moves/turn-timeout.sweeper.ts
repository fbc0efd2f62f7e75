import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { chatConfig, type ChatConfig } from '../chat.config.js';
import { ConversationService } from './conversation.service.js';

/** Overdue turns handled per tick at most; a larger backlog is worked off on the following ticks. */
const SWEEP_BATCH = 100;

/** The sweep's name in `@nestjs/schedule`'s registry. */
export const TURN_TIMEOUT_SWEEP = 'turn-timeout-sweep';

/**
 * Passes on turns whose deadline has passed (see `timeOutTurn`). Runs in every replica: `FOR UPDATE SKIP LOCKED`
 * hands each overdue group to exactly one of them, and a group busy with a move is left for the next tick. The
 * interval is registered with `@nestjs/schedule` rather than declared with `@Interval`, because its period comes
 * from the validated configuration.
 */
@Injectable()
export class TurnTimeoutSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TurnTimeoutSweeper.name);
  private running?: Promise<void>;

  constructor(
    private readonly conversation: ConversationService,
    private readonly schedules: SchedulerRegistry,
    @Inject(chatConfig.KEY) private readonly config: ChatConfig,
  ) {}

  onApplicationBootstrap(): void {
    const timer = setInterval(() => this.tick(), this.config.turnTimeoutSweepMs);
    timer.unref();
    this.schedules.addInterval(TURN_TIMEOUT_SWEEP, timer);
  }

  /** One tick; skipped while the previous one still runs (a slow database must not pile sweeps up). */
  private tick(): void {
    this.running ??= this.sweep()
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.warn(`Turn timeout sweep failed: ${error instanceof Error ? error.message : String(error)}`);
        },
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Times out every overdue turn (up to a batch); returns how many. */
  async sweep(): Promise<number> {
    if (!(await this.conversation.hasOverdueTurn())) return 0;
    let count = 0;
    while (count < SWEEP_BATCH && (await this.conversation.timeOutNextOverdueTurn())) count++;
    return count;
  }

  async onModuleDestroy(): Promise<void> {
    this.schedules.deleteInterval(TURN_TIMEOUT_SWEEP);
    await this.running;
  }
}
