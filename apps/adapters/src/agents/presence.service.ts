import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ContractError, HeartbeatAgentV1 } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import { AdaptedTasksService } from '../tasks/adapted-tasks.service.js';
import { AgentTargets } from '../secrets/agent-targets.js';
import { EndpointRunners } from '../tasks/endpoint-runners.js';
import { describeError } from '../tasks/outbound-call.js';
import { AdaptedAgentEntity } from './adapted-agent.entity.js';
import { ReachabilityBook } from './reachability.js';

/**
 * Presence of adapted agents. Every round it reads the adapted agents (so agents registered through another
 * replica are served here too), probes each endpoint, and heartbeats in the registry only those that answered.
 * An endpoint that is down therefore goes silent, the registry marks the agent offline after its TTL, and
 * discovery's `onlineOnly` search and team formation stop choosing it — with no change to the scheduler. When the
 * endpoint answers again, the next heartbeat brings the agent back online.
 */
@Injectable()
export class PresenceService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PresenceService.name);
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  private stopped = false;

  constructor(
    @Inject(adaptersConfig.KEY) private readonly config: AdaptersConfig,
    @InjectRepository(AdaptedAgentEntity) private readonly agents: Repository<AdaptedAgentEntity>,
    private readonly runners: EndpointRunners,
    private readonly reachability: ReachabilityBook,
    private readonly tasks: AdaptedTasksService,
    private readonly client: ContractClient,
    private readonly targets: AgentTargets,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  /** Probes one agent now and heartbeats it if its endpoint answers; returns whether it did. */
  async check(agent: AdaptedAgentEntity): Promise<boolean> {
    try {
      await this.runners.for(agent.kind).probe(this.targets.of(agent));
    } catch (error) {
      const reason = describeError(error);
      if (this.reachability.get(agent.id).reachable) this.logger.warn(`${agent.name} is unreachable: ${reason}`);
      this.reachability.markUnreachable(agent.id, reason);
      return false;
    }
    if (!this.reachability.get(agent.id).reachable) this.logger.log(`${agent.name} is reachable`);
    this.reachability.markReachable(agent.id);
    try {
      await this.client.request(HeartbeatAgentV1, { id: agent.id });
    } catch (error) {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') {
        // Its card left the registry (deregistered directly there): stop speaking for it.
        this.logger.warn(`${agent.name} is unknown to the registry: no longer served`);
        this.tasks.stopServing(agent.id);
        await this.agents.delete({ id: agent.id });
        this.reachability.forget(agent.id);
      }
    }
    return true;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.round = this.runRound().finally(() => this.schedule(this.config.heartbeatIntervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async runRound(): Promise<void> {
    let agents: AdaptedAgentEntity[];
    try {
      agents = await this.agents.find();
    } catch (error) {
      this.logger.warn(`Reading the adapted agents failed: ${describeError(error)}`);
      return;
    }
    const known = new Set(agents.map((agent) => agent.id));
    for (const agentId of this.tasks.servedAgentIds()) {
      if (!known.has(agentId)) {
        this.tasks.stopServing(agentId);
        this.reachability.forget(agentId);
      }
    }
    for (const agent of agents) this.tasks.serve(agent.id);
    await Promise.allSettled(agents.map((agent) => this.check(agent)));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
  }
}
