import {
  AgentCameOnlineV1,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentWentOfflineV1,
} from '@ioa/contracts';
import { toAgentCard } from './agent-card.mapper.js';
import { agentCameOnline, agentDeregistered, agentRegistered, agentUpdated, agentWentOffline } from './agent.events.js';
import { newAgentEntity } from '../testing/agent-entity.factory.js';

describe('registry events', () => {
  const agent = newAgentEntity({ revision: 4 });

  const registration = `${agent.id}:${agent.registeredAt.toISOString()}`;

  it('carry the whole card on registered and updated, identified by agent, registration and revision', () => {
    expect(agentRegistered(agent)).toEqual({
      contract: AgentRegisteredV1,
      payload: { agent: toAgentCard(agent) },
      messageId: `${registration}:4`,
    });
    expect(agentUpdated(agent)).toMatchObject({ contract: AgentUpdatedV1, messageId: `${registration}:4` });
  });

  it('keep a later registration of the same id apart from the earlier one (an identity keeps its id)', () => {
    const again = newAgentEntity({
      id: agent.id,
      revision: 4,
      registeredAt: new Date(agent.registeredAt.getTime() + 1),
    });
    expect(agentRegistered(again).messageId).not.toBe(agentRegistered(agent).messageId);
  });

  it('give a deregistration the revision after the last card', () => {
    expect(agentDeregistered(agent)).toEqual({
      contract: AgentDeregisteredV1,
      payload: { agentId: agent.id, name: 'translator', revision: 5 },
      messageId: `${registration}:5`,
    });
  });

  it('identify presence changes by the heartbeat they are about', () => {
    const lastSeenAt = agent.lastSeenAt.toISOString();
    expect(agentWentOffline(agent)).toEqual({
      contract: AgentWentOfflineV1,
      payload: { agentId: agent.id, name: 'translator', status: 'offline', lastSeenAt },
      messageId: `${agent.id}:offline:${lastSeenAt}`,
    });
    expect(agentCameOnline(agent)).toMatchObject({
      contract: AgentCameOnlineV1,
      payload: { status: 'online', lastSeenAt },
      messageId: `${agent.id}:online:${lastSeenAt}`,
    });
  });
});
