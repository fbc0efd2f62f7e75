import { Inject, Injectable } from '@nestjs/common';
import { ContractError, GetAgentV1, type AgentCardV1 } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { agentHostConfig, type AgentHostConfig } from '../agent-host.config.js';

interface Entry {
  card: Promise<AgentCardV1 | undefined>;
  expiresAt: number;
}

/**
 * Agent cards by id, fetched with `GetAgentV1` and kept for a short while: a group's members are looked up on
 * every turn, and their skills and `communicator` flag change rarely. Concurrent lookups of one id share a request.
 * Unknown agents are remembered as unknown for the same time; lookup failures are not cached.
 */
@Injectable()
export class AgentCardCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly client: ContractClient,
    @Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig,
  ) {}

  get(agentId: string): Promise<AgentCardV1 | undefined> {
    const now = Date.now();
    const cached = this.entries.get(agentId);
    if (cached && cached.expiresAt > now) return cached.card;
    const card = this.client.request(GetAgentV1, { id: agentId }).catch((error: unknown) => {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') return undefined;
      this.entries.delete(agentId);
      throw error;
    });
    this.entries.set(agentId, { card, expiresAt: now + this.config.communicator.cardCacheMs });
    if (this.entries.size > 10_000) this.evictExpired(now);
    return card;
  }

  private evictExpired(now: number): void {
    for (const [id, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(id);
  }
}
