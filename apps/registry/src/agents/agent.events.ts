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
 * Message ids name the fact, so a re-published event is dropped by JetStream: each revision of an agent is exactly
 * one of registered / updated / deregistered, and a presence change is identified by the heartbeat it is about.
 */

export function agentRegistered(agent: AgentEntity): OutboxMessage {
  return outboxMessage(AgentRegisteredV1, { agent: toAgentCard(agent) }, `${agent.id}:${agent.revision}`);
}

export function agentUpdated(agent: AgentEntity): OutboxMessage {
  return outboxMessage(AgentUpdatedV1, { agent: toAgentCard(agent) }, `${agent.id}:${agent.revision}`);
}

/** `revision` is the one after the last card's: deregistration is the agent's newest change. */
export function agentDeregistered(agent: Pick<AgentEntity, 'id' | 'name' | 'revision'>): OutboxMessage {
  const revision = agent.revision + 1;
  return outboxMessage(
    AgentDeregisteredV1,
    { agentId: agent.id, name: agent.name, revision },
    `${agent.id}:${revision}`,
  );
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
