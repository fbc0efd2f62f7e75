import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AgentIndexedV1,
  type AgentCardV1,
  type AgentDeregisteredV1Event,
  type AgentPresenceChangedV1Event,
} from '@ioa/contracts';
import { EventBus } from '@ioa/messaging';
import { EMBEDDER, type Embedder } from '@ioa/embeddings';
import { AgentIndexRepository } from './agent-index.repository.js';
import { cardDocument, skillTags } from './card-document.js';

export type IndexOutcome = 'indexed' | 'unchanged' | 'stale';

/**
 * Keeps the agent index in step with the registry: embeds and stores cards, applies presence, removes agents.
 * Each change that searches can see is announced with `AgentIndexedV1`, published after the write committed, so
 * a caller that registered an agent can wait for it to become findable.
 */
@Injectable()
export class AgentIndexService {
  private readonly logger = new Logger(AgentIndexService.name);

  constructor(
    private readonly repository: AgentIndexRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    private readonly eventBus: EventBus,
  ) {}

  /**
   * A registered or updated card. Older revisions than the stored one are ignored (they can arrive late from a
   * replica or a replay). A redelivered event for the stored revision is announced again, since the first
   * announcement may have been lost with the process that handled it.
   */
  async onCardChanged(card: AgentCardV1): Promise<IndexOutcome> {
    const check = await this.repository.checkRevision(card.id, card.revision);
    if (check === 'stale') {
      this.logger.debug(`Ignoring revision ${card.revision} of ${card.name}: the index has a newer one`);
      return 'stale';
    }
    if (check === 'current') {
      await this.announce(card.id, card.revision, true);
      return 'unchanged';
    }
    const written = await this.store(card);
    if (written) await this.announce(card.id, card.revision, true);
    return written ? 'indexed' : 'stale';
  }

  /**
   * A card read back from the registry (so it is the registry's current one). An agent with an identity keeps its
   * id when it deregisters and registers again, and its new card starts again at revision 1: what the index kept of
   * the earlier incarnation (its row, or the tombstone of its removal) is forgotten first, told apart by the card's
   * `registeredAt`.
   */
  async onConfirmedCard(card: AgentCardV1): Promise<IndexOutcome> {
    await this.repository.forgetOtherIncarnations(card.id, card.registeredAt);
    return this.onCardChanged(card);
  }

  async onDeregistered(event: AgentDeregisteredV1Event): Promise<void> {
    await this.repository.remove(event.agentId, event.revision);
    await this.announce(event.agentId, event.revision, false);
  }

  async onPresenceChanged(event: AgentPresenceChangedV1Event): Promise<void> {
    const changed = await this.repository.updateStatus(event.agentId, event.status, event.lastSeenAt);
    if (changed) await this.announce(event.agentId, changed.revision, true);
  }

  /**
   * One card of a registry snapshot taken at `takenAt`: stored when newer than the index, its presence applied
   * when only that differs (unless an event changed the row after the snapshot).
   */
  async applySnapshot(card: AgentCardV1, takenAt: Date): Promise<IndexOutcome> {
    const check = await this.repository.checkRevision(card.id, card.revision);
    if (check === 'newer') {
      const written = await this.store(card);
      if (written) await this.announce(card.id, card.revision, true);
      return written ? 'indexed' : 'stale';
    }
    if (check === 'current' && (await this.repository.applySnapshotStatus(card.id, card.status, takenAt))) {
      await this.announce(card.id, card.revision, true);
      return 'indexed';
    }
    return check === 'current' ? 'unchanged' : 'stale';
  }

  private async store(card: AgentCardV1): Promise<boolean> {
    const [embedding] = await this.embedder.embed([cardDocument(card)]);
    return this.repository.upsert({
      card,
      skillTags: skillTags(card),
      embedding,
      model: this.embedder.model,
      dimension: this.embedder.dimension,
    });
  }

  async announce(agentId: string, revision: number, indexed: boolean): Promise<void> {
    await this.eventBus.publish(AgentIndexedV1, { agentId, revision, model: this.embedder.model, indexed });
  }
}
