import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { expectEventually } from '@ioa/testing';
import {
  AgentCameOnlineV1,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentWentOfflineV1,
} from '@ioa/contracts';

export interface ObservedEvent {
  subject: string;
  payload: Record<string, unknown> & { agent?: Record<string, unknown>; agentId?: string };
  messageId?: string;
}

export const REGISTRY_EVENT_CONTRACTS = [
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentDeregisteredV1,
  AgentWentOfflineV1,
  AgentCameOnlineV1,
];

/**
 * Watches the registry's events the way an external agent would: plain core-NATS subscriptions on the event
 * subjects (JetStream-published events reach core subscribers too).
 */
export async function watchRegistryEvents(connection: NatsConnection): Promise<{
  events: ObservedEvent[];
  about(agentId: string): ObservedEvent[];
  /** Waits for the first event of `contract` about the agent. */
  waitFor(contract: { subject: string }, agentId: string): Promise<ObservedEvent>;
  stop(): void;
}> {
  const events: ObservedEvent[] = [];
  const subscriptions: Subscription[] = REGISTRY_EVENT_CONTRACTS.map((contract) =>
    connection.subscribe(contract.subject, {
      callback: (error, message) => {
        if (error) return;
        events.push({
          subject: message.subject,
          payload: JSON.parse(new TextDecoder().decode(message.data)) as ObservedEvent['payload'],
          messageId: message.headers?.get('Nats-Msg-Id'),
        });
      },
    }),
  );
  await connection.flush();
  const about = (agentId: string) =>
    events.filter((event) => (event.payload.agent?.id ?? event.payload.agentId) === agentId);
  return {
    events,
    about,
    waitFor: async (contract, agentId) =>
      (await expectEventually(() => about(agentId).find((event) => event.subject === contract.subject), {
        message: `No ${contract.subject} event about ${agentId}`,
      })) as ObservedEvent,
    stop: () => subscriptions.forEach((subscription) => subscription.unsubscribe()),
  };
}
