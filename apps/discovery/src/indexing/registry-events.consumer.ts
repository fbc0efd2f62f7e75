import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  AgentCameOnlineV1,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentWentOfflineV1,
} from '@ioa/contracts';
import { EventBus, on } from '@ioa/messaging';
import { RegistryConfirmation } from './registry-confirmation.js';

/** Durable consumer name: replicas of discovery share it, and a restart resumes where the last one stopped. */
export const DISCOVERY_DURABLE = 'discovery';

/**
 * Feeds registry events (a JetStream stream, so none is missed while discovery is down) to the index, in stream
 * order, each checked against the registry first. A handler that throws (database, registry or embedding endpoint
 * down) gets its event redelivered later.
 */
@Injectable()
export class RegistryEventsConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly eventBus: EventBus,
    private readonly registry: RegistryConfirmation,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.eventBus.subscribe({
      durable: DISCOVERY_DURABLE,
      handlers: [
        on(AgentRegisteredV1, (event) => this.registry.onCardChanged(event.agent)),
        on(AgentUpdatedV1, (event) => this.registry.onCardChanged(event.agent)),
        on(AgentDeregisteredV1, (event) => this.registry.onDeregistered(event)),
        on(AgentWentOfflineV1, (event) => this.registry.onPresenceChanged(event)),
        on(AgentCameOnlineV1, (event) => this.registry.onPresenceChanged(event)),
      ],
    });
  }
}
