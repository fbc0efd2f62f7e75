import {
  AgentCameOnlineV1,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentWentOfflineV1,
} from '@ioa/contracts';
import { outboxMessage, type OutboxMessage } from '@ioa/database';
import type { AgentEntity } from './agent.entity.js';
import { toAgentCard } from './agent-card.mapper.js';

/*
 * Message ids name the fact, so a re-published event is dropped by JetStream: each revision of an agent's
 * registration is exactly one of registered / updated / deregistered, and a presence change is identified by the
 * heartbeat it is about. An agent with an identity keeps its id when it leaves and registers again, and its
 * revisions start again at 1: the registration's time keeps its facts apart from the earlier ones' (which JetStream
 * would otherwise drop as duplicates within its window).
 */

type Registration = Pick<AgentEntity, 'id' | 'revision' | 'registeredAt'>;

function factId(agent: Registration, revision: number): string {
  return `${agent.id}:${agent.registeredAt.toISOString()}:${revision}`;
}

export function agentRegistered(agent: AgentEntity): OutboxMessage {
  return outboxMessage(AgentRegisteredV1, { agent: toAgentCard(agent) }, factId(agent, agent.revision));
}

export function agentUpdated(agent: AgentEntity): OutboxMessage {
  return outboxMessage(AgentUpdatedV1, { agent: toAgentCard(agent) }, factId(agent, agent.revision));
}

/** `revision` is the one after the last card's: deregistration is the agent's newest change. */
export function agentDeregistered(agent: Registration & Pick<AgentEntity, 'name'>): OutboxMessage {
  const revision = agent.revision + 1;
  return outboxMessage(AgentDeregisteredV1, { agentId: agent.id, name: agent.name, revision }, factId(agent, revision));
}

export function agentWentOffline(agent: Pick<AgentEntity, 'id' | 'name' | 'lastSeenAt'>): OutboxMessage {
  const lastSeenAt = agent.lastSeenAt.toISOString();
  return outboxMessage(
    AgentWentOfflineV1,
    { agentId: agent.id, name: agent.name, status: 'offline', lastSeenAt },
    `${agent.id}:offline:${lastSeenAt}`,
  );
}

export function agentCameOnline(agent: Pick<AgentEntity, 'id' | 'name' | 'lastSeenAt'>): OutboxMessage {
  const lastSeenAt = agent.lastSeenAt.toISOString();
  return outboxMessage(
    AgentCameOnlineV1,
    { agentId: agent.id, name: agent.name, status: 'online', lastSeenAt },
    `${agent.id}:online:${lastSeenAt}`,
  );
}
