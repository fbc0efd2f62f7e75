import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { agentHostConfig, type AgentHostConfig } from '../agent-host.config.js';
import type { OwnedWorkKind } from './owned-work.entity.js';
import { OwnedWorkRepository, type OwnedWork } from './owned-work.repository.js';

/** Takes over work a replica held when it died; called once per claimed row. */
export type ResumeWork = (work: OwnedWork) => void;

/** Rows taken over per sweep; the rest wait for the next one (each resumed piece queues behind the live work). */
const CLAIM_BATCH = 50;

/**
 * Durable ownership of accepted work, shared by replicas through agent-host's table. Accepting work writes its row
 * (`own`) before the acknowledgement goes out; finishing it deletes the row (`release`). Every third of the lease
 * this replica renews the leases of what it holds and takes over rows whose lease ran out (a replica died), in the
 * scopes it serves; right after boot it also takes back what its own instance id held (a restart). Each taken row
 * is handed to the resumer registered for its kind, which runs it again: a task is re-run and re-reported (the
 * scheduler takes a repeated report idempotently and refuses one for a finished task), a turn is taken again (the
 * chat refuses a move for a turn that moved on).
 */
@Injectable()
export class WorkLeaseService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkLeaseService.name);
  readonly instanceId: string;
  private readonly resumers = new Map<OwnedWorkKind, { scopes: () => string[]; resume: ResumeWork }>();
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private booted = false;
  private stopped = false;

  constructor(
    private readonly repository: OwnedWorkRepository,
    @Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig,
  ) {
    this.instanceId = config.ownership.instanceId ?? `${hostname()}-${randomUUID().slice(0, 8)}`;
  }

  /** Registers who resumes taken-over work of `kind`, and which scopes (agents, the communicator) it serves. */
  resumeWith(kind: OwnedWorkKind, scopes: () => string[], resume: ResumeWork): void {
    this.resumers.set(kind, { scopes, resume });
  }

  /** Owns the work durably; false when someone already owns it. Throws when the database cannot record it. */
  own(kind: OwnedWorkKind, workKey: string, scope: string, payload: unknown): Promise<boolean> {
    return this.repository.own({ kind, workKey, scope, payload }, this.instanceId, this.config.ownership.leaseMs);
  }

  /** The work is done (or refused, or canceled): nobody should resume it. Logged, never thrown. */
  async release(kind: OwnedWorkKind, workKey: string): Promise<void> {
    try {
      await this.repository.release(kind, workKey);
    } catch (error) {
      // The lease runs out and a replica resumes it; the scheduler or the chat then refuses the repeat.
      this.logger.warn(`Could not release ${kind} ${workKey}: ${(error as Error).message}`);
    }
  }

  /** Gives the work up for another take (here or on a replica) at the next sweep. Logged, never thrown. */
  async handBack(kind: OwnedWorkKind, workKey: string): Promise<void> {
    try {
      await this.repository.expire(kind, workKey);
    } catch (error) {
      this.logger.warn(`Could not hand back ${kind} ${workKey}: ${(error as Error).message}`);
    }
  }

  onApplicationBootstrap(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), Math.max(100, Math.floor(this.config.ownership.leaseMs / 3)));
  }

  /** Renews this replica's leases and takes over expired work; one sweep at a time. */
  sweep(): Promise<void> {
    this.sweeping ??= this.renewAndClaim().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async renewAndClaim(): Promise<void> {
    if (this.stopped) return;
    const { leaseMs } = this.config.ownership;
    try {
      await this.repository.renew(this.instanceId, leaseMs);
      for (const [kind, resumer] of this.resumers) {
        const scopes = resumer.scopes();
        const claimed = await this.repository.claim(this.instanceId, kind, scopes, {
          leaseMs,
          limit: CLAIM_BATCH,
          includeOwn: !this.booted,
        });
        for (const work of claimed) {
          this.logger.log(`Resuming ${work.kind} ${work.workKey} (${work.scope}, claim ${work.claims})`);
          try {
            resumer.resume(work);
          } catch (error) {
            // One bad row must not hold up the others; its lease runs out and the claims count bounds the retries.
            this.logger.warn(`Could not resume ${work.kind} ${work.workKey}: ${(error as Error).message}`);
          }
        }
      }
      this.booted = true;
    } catch (error) {
      this.logger.warn(`Work lease sweep failed: ${(error as Error).message}`);
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
      this.logger.warn(`Could not hand over this replica's work: ${(error as Error).message}`);
    }
  }
}
