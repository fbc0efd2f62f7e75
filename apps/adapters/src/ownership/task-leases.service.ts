import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { TaskAssignmentV1Request } from '@ioa/contracts';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import type { TaskCheckpoint } from '../tasks/endpoint-runner.js';
import { AdaptedTaskRepository, type OwnedTask } from './adapted-task.repository.js';

/** Tasks taken over per sweep; the rest wait for the next one. */
const CLAIM_BATCH = 50;

/**
 * Durable ownership of accepted tasks, shared by the replicas through `adapters.adapted_tasks` (agent-host's
 * `owned_work` pattern). Accepting a task writes its row before the acknowledgement goes out; finishing it deletes
 * the row. Every third of the lease this replica renews what it holds and takes over rows whose lease ran out (a
 * replica died); right after boot it also takes back what its own instance id held (a restart, `kill -9`
 * included). Each taken row goes to the resumer, which carries the task on from its checkpoint.
 */
@Injectable()
export class TaskLeasesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TaskLeasesService.name);
  readonly instanceId: string;
  private resumer?: (task: OwnedTask) => void;
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private booted = false;
  private stopped = false;

  constructor(
    private readonly repository: AdaptedTaskRepository,
    @Inject(adaptersConfig.KEY) private readonly config: AdaptersConfig,
  ) {
    this.instanceId = config.ownership.instanceId ?? `${hostname()}-${randomUUID().slice(0, 8)}`;
  }

  /** Who carries on a task taken over from a replica that died (or from this one before a restart). */
  resumeWith(resumer: (task: OwnedTask) => void): void {
    this.resumer = resumer;
  }

  /** Owns the task durably; false when someone already does. Throws when the database cannot record it. */
  own(assignment: TaskAssignmentV1Request): Promise<boolean> {
    return this.repository.own(assignment, this.instanceId, this.config.ownership.leaseMs);
  }

  async checkpoint(taskId: string, checkpoint: TaskCheckpoint): Promise<void> {
    try {
      await this.repository.checkpoint(taskId, checkpoint);
    } catch (error) {
      // Resuming from an older checkpoint redoes more (an A2A task is sent again), which is still correct.
      this.logger.warn(`Could not save the checkpoint of task ${taskId}: ${(error as Error).message}`);
    }
  }

  /** Finished, canceled or left to a webhook's callback: nobody resumes it. Logged, never thrown. */
  async release(taskId: string): Promise<void> {
    try {
      await this.repository.release(taskId);
    } catch (error) {
      // The lease runs out and a replica resumes it; the scheduler then refuses the repeated report.
      this.logger.warn(`Could not release task ${taskId}: ${(error as Error).message}`);
    }
  }

  /** Gives the task up for another take at the next sweep (its result could not be delivered). */
  async handBack(taskId: string): Promise<void> {
    try {
      await this.repository.expire(taskId);
    } catch (error) {
      this.logger.warn(`Could not hand back task ${taskId}: ${(error as Error).message}`);
    }
  }

  get maxClaims(): number {
    return this.config.ownership.maxClaims;
  }

  onApplicationBootstrap(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), Math.max(100, Math.floor(this.config.ownership.leaseMs / 3)));
    this.timer.unref();
  }

  /** Renews this replica's leases and takes over expired tasks; one sweep at a time. */
  sweep(): Promise<void> {
    this.sweeping ??= this.renewAndClaim().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async renewAndClaim(): Promise<void> {
    if (this.stopped || !this.resumer) return;
    const { leaseMs } = this.config.ownership;
    try {
      await this.repository.renew(this.instanceId, leaseMs);
      const claimed = await this.repository.claim(this.instanceId, {
        leaseMs,
        limit: CLAIM_BATCH,
        includeOwn: !this.booted,
      });
      this.booted = true;
      for (const task of claimed) {
        this.logger.log(
          `Resuming task ${task.assignment.taskId} of agent ${task.assignment.agentId} (claim ${task.claims})`,
        );
        try {
          this.resumer(task);
        } catch (error) {
          // One bad row must not hold up the others; its lease runs out and the claims count bounds the retries.
          this.logger.warn(`Could not resume task ${task.assignment.taskId}: ${(error as Error).message}`);
        }
      }
    } catch (error) {
      this.logger.warn(`Task lease sweep failed: ${(error as Error).message}`);
    }
  }

  /** A graceful stop hands everything this replica holds to the others at once, rather than after the lease. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.sweeping;
    try {
      await this.repository.expireAllOf(this.instanceId);
    } catch (error) {
      this.logger.warn(`Could not hand over this replica's tasks: ${(error as Error).message}`);
    }
  }
}
