import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { chatConfig, type ChatConfig } from '../chat.config.js';
import { ConversationService } from './conversation.service.js';

/** Overdue turns handled per tick at most; a larger backlog is worked off on the following ticks. */
const SWEEP_BATCH = 100;

/**
 * Passes on turns whose deadline has passed (see `timeOutTurn`). Runs in every replica: `FOR UPDATE SKIP LOCKED`
 * hands each overdue group to exactly one of them, and a group busy with a move is left for the next tick.
 */
@Injectable()
export class TurnTimeoutSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TurnTimeoutSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly conversation: ConversationService,
    @Inject(chatConfig.KEY) private readonly config: ChatConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick(), this.config.turnTimeoutSweepMs);
    this.timer.unref();
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
    clearInterval(this.timer);
    await this.running;
  }
}
