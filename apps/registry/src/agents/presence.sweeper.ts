import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { SchedulerRegistry } from '@nestjs/schedule';
import { registryConfig } from '../registry.config.js';
import { agentWentOffline } from './agent.events.js';
import { AgentsRepository } from './agents.repository.js';

/** Agents marked offline per statement; a larger backlog is worked off on the following ticks. */
const SWEEP_BATCH = 500;

/** The sweep's name in `@nestjs/schedule`'s registry. */
export const PRESENCE_SWEEP = 'presence-sweep';

/**
 * Marks agents silent for longer than the heartbeat TTL offline and publishes `went-offline` for each. Runs in
 * every replica: the UPDATE ... RETURNING with SKIP LOCKED hands each silent agent to exactly one of them. The
 * interval is registered with `@nestjs/schedule` rather than declared with `@Interval`, because its period comes
 * from the validated configuration.
 */
@Injectable()
export class PresenceSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PresenceSweeper.name);
  private running?: Promise<void>;
  private failing = false;
  private bootedAt = Date.now();

  constructor(
    private readonly agents: AgentsRepository,
    private readonly schedules: SchedulerRegistry,
    @Inject(registryConfig.KEY) private readonly config: ConfigType<typeof registryConfig>,
  ) {}

  onApplicationBootstrap(): void {
    this.bootedAt = Date.now();
    this.schedules.addInterval(
      PRESENCE_SWEEP,
      setInterval(() => this.tick(), this.config.presenceSweepMs),
    );
  }

  /** One tick; skipped while the previous one still runs (a slow database must not pile sweeps up). */
  private tick(): void {
    // While this replica was down (or the registry was), heartbeats went unanswered: a live agent's last one may be
    // older than the TTL through no fault of its own. It gets one TTL from our boot to be heard before it is judged.
    if (Date.now() - this.bootedAt < this.config.heartbeatTtlSeconds * 1000) return;
    this.running ??= this.sweep()
      .then(
        () => {
          if (this.failing) this.logger.log('Presence sweeps work again');
          this.failing = false;
        },
        (error: unknown) => {
          // Once per streak: a database outage must not log ten lines a second.
          if (!this.failing) {
            this.logger.warn(
              `Presence sweep failed, retrying: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          this.failing = true;
        },
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Marks the agents silent for longer than the TTL offline; returns how many. */
  async sweep(): Promise<number> {
    const silent = await this.agents.transaction(async (transaction) => {
      const agents = await transaction.markSilentAgentsOffline(this.config.heartbeatTtlSeconds, SWEEP_BATCH);
      await transaction.enqueue(...agents.map(agentWentOffline));
      return agents;
    });
    return silent.length;
  }

  async onModuleDestroy(): Promise<void> {
    this.schedules.deleteInterval(PRESENCE_SWEEP);
    await this.running;
  }
}
