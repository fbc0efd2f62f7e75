import type { NatsConnection } from '@nats-io/transport-node';
import { GetAgentV1, type AgentCardV1 } from '@ioa/contracts';

/**
 * The registry's `ioa.registry.agent.get.v1`, played by a test that runs discovery on its own: discovery reads each
 * card back from the registry before it believes a registry event, so what the test publishes must be what this
 * stand-in holds. `cards` is the registry's state now.
 */
export function serveRegistryStandIn(connection: NatsConnection): { cards: Map<string, AgentCardV1>; stop(): void } {
  const cards = new Map<string, AgentCardV1>();
  const subscription = connection.subscribe(GetAgentV1.subject, {
    callback: (_error, message) => {
      const { id } = message.json<{ id: string }>();
      const card = cards.get(id);
      const notFound = { code: 'NOT_FOUND', message: `Agent "${id}" does not exist`, retryable: false };
      message.respond(JSON.stringify(card ? { ok: true, data: card } : { ok: false, error: notFound }));
    },
  });
  return { cards, stop: () => subscription.unsubscribe() };
}
