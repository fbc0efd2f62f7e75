import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ContractError, HeartbeatAgentV1, RegisterAgentV1 } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import pRetry from 'p-retry';
import { agentHostConfig, type AgentHostConfig } from '../agent-host.config.js';
import { HOSTED_AGENTS, type HostedAgent } from '../agents/hosted-agent.js';

/** Called when a hosted agent has (a new) id: the dispatcher then serves that id's task subjects. */
export type RegistrationListener = (agent: HostedAgent, agentId: string, previousId: string | undefined) => void;

/** Registration is retried until it succeeds (or the service stops): 250 ms, doubling, at most 5 s apart. */
const REGISTER_RETRY = { retries: Infinity, minTimeout: 250, factor: 2, maxTimeout: 5_000, randomize: false } as const;

/**
 * Registers every hosted agent with the registry like any other agent, then heartbeats it well within the TTL the
 * registry announces. NOT_FOUND on a heartbeat (the card was removed, or the registry lost it) re-registers. The
 * registry being unreachable never blocks the boot: registration retries in the background with backoff.
 * On shutdown the heartbeats stop (the cards are not deregistered: the registry marks them offline after the TTL,
 * and a restart comes back under the same ids).
 */
@Injectable()
export class AgentRegistrationService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AgentRegistrationService.name);
  private readonly ids = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly listeners: RegistrationListener[] = [];
  private readonly shutdown = new AbortController();
  private stopped = false;

  constructor(
    private readonly client: ContractClient,
    @Inject(HOSTED_AGENTS) private readonly agents: HostedAgent[],
    @Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig,
  ) {}

  onRegistered(listener: RegistrationListener): void {
    this.listeners.push(listener);
    for (const agent of this.agents) {
      const id = this.ids.get(agent.name);
      if (id) listener(agent, id, undefined);
    }
  }

  /** The registry id of a hosted agent, once registered. */
  agentId(name: string): string | undefined {
    return this.ids.get(name);
  }

  onApplicationBootstrap(): void {
    for (const agent of this.agents) void this.register(agent);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.shutdown.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(delayMs: number, work: () => Promise<void>): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void work();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async register(agent: HostedAgent): Promise<void> {
    if (this.stopped) return;
    let response;
    try {
      response = await pRetry(() => this.client.request(RegisterAgentV1, agent.card(this.config.owner)), {
        ...REGISTER_RETRY,
        signal: this.shutdown.signal,
        onFailedAttempt: ({ error, retryDelay }) =>
          this.logger.warn(`Registering ${agent.name} failed, retrying in ${retryDelay} ms: ${error.message}`),
      });
    } catch {
      return; // only a stop ends the retries
    }
    const previousId = this.ids.get(agent.name);
    this.ids.set(agent.name, response.agent.id);
    if (previousId !== response.agent.id) {
      this.logger.log(`${agent.name} registered as ${response.agent.id}`);
      for (const listener of this.listeners) listener(agent, response.agent.id, previousId);
    }
    this.schedule(this.heartbeatInterval(response.heartbeatTtlSeconds), () => this.heartbeat(agent, response.agent.id));
  }

  private async heartbeat(agent: HostedAgent, agentId: string): Promise<void> {
    if (this.stopped) return;
    try {
      const response = await this.client.request(HeartbeatAgentV1, { id: agentId });
      this.schedule(this.heartbeatInterval(response.heartbeatTtlSeconds), () => this.heartbeat(agent, agentId));
    } catch (error) {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') {
        this.logger.warn(`${agent.name} is unknown to the registry: registering again`);
        await this.register(agent);
        return;
      }
      // Registry briefly unreachable: keep beating at the normal pace, the TTL leaves room for a few misses.
      this.schedule(this.config.heartbeatIntervalMs, () => this.heartbeat(agent, agentId));
    }
  }

  /** The configured period, but never more than a third of the TTL, so two lost beats still leave the agent online. */
  private heartbeatInterval(ttlSeconds: number): number {
    return Math.max(100, Math.min(this.config.heartbeatIntervalMs, Math.floor((ttlSeconds * 1000) / 3)));
  }
}
