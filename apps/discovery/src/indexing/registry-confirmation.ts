import { Injectable, Logger } from '@nestjs/common';
import {
  ContractError,
  GetAgentV1,
  type AgentCardV1,
  type AgentDeregisteredV1Event,
  type AgentPresenceChangedV1Event,
} from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { AgentIndexService } from './agent-index.service.js';

/**
 * The registry's events say that something changed; what the index stores is what the registry says now. Each event
 * is checked by reading the card back (`ioa.registry.agent.get.v1`, one request per event): an event the registry
 * contradicts (a card it does not have, a revision it never reached, a removal of an agent it still has) changes
 * nothing, and is logged. The broker already lets only the registry publish these events; this keeps the index
 * true where it would not (a broker without authentication, a leaked credential), and also makes a late event of
 * an agent's earlier incarnation harmless. A registry that cannot be asked makes the event retry (the consumer's
 * backoff), never pass unchecked.
 */
@Injectable()
export class RegistryConfirmation {
  private readonly logger = new Logger(RegistryConfirmation.name);

  constructor(
    private readonly client: ContractClient,
    private readonly index: AgentIndexService,
  ) {}

  async onCardChanged(claimed: AgentCardV1): Promise<void> {
    const card = await this.currentCard(claimed.id);
    if (!card || card.revision < claimed.revision) {
      return this.refuse(`revision ${claimed.revision} of ${claimed.id}`, card);
    }
    await this.index.onConfirmedCard(card);
  }

  async onPresenceChanged(claimed: AgentPresenceChangedV1Event): Promise<void> {
    const card = await this.currentCard(claimed.agentId);
    if (!card) return this.refuse(`presence "${claimed.status}" of ${claimed.agentId}`, card);
    // The registry's presence, not the event's: a late or forged event cannot flip it.
    await this.index.onPresenceChanged({ ...claimed, status: card.status, lastSeenAt: card.lastSeenAt });
  }

  async onDeregistered(claimed: AgentDeregisteredV1Event): Promise<void> {
    const card = await this.currentCard(claimed.agentId);
    // Still registered (or registered again under the same id since): the removal is not the registry's truth.
    if (card) return this.refuse(`removal of ${claimed.agentId}`, card);
    await this.index.onDeregistered(claimed);
  }

  private async currentCard(agentId: string): Promise<AgentCardV1 | undefined> {
    try {
      return await this.client.request(GetAgentV1, { id: agentId });
    } catch (error) {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  private refuse(what: string, card: AgentCardV1 | undefined): void {
    const truth = card ? `revision ${card.revision}, ${card.status}` : 'no such agent';
    this.logger.warn(`Ignored a registry event (${what}) that the registry contradicts: it has ${truth}`);
  }
}
