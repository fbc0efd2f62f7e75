import { AgentEntity } from '../agents/agent.entity.js';

/** A stored agent, for pure specs: override what the scenario is about. */
export function newAgentEntity(overrides: Partial<AgentEntity> = {}): AgentEntity {
  const at = new Date('2026-01-02T03:04:05.678Z');
  return Object.assign(new AgentEntity(), {
    id: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f',
    name: 'translator',
    description: 'Translates documents.',
    skills: [{ id: 'translate', name: 'Translate', description: 'Translate text.', tags: ['i18n'], examples: [] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    owner: 'team-docs',
    endpoint: { kind: 'nats' },
    version: '1.0.0',
    provider: null,
    documentationUrl: null,
    metadata: {},
    status: 'online',
    revision: 1,
    registeredAt: at,
    updatedAt: at,
    lastSeenAt: at,
    ...overrides,
  } satisfies AgentEntity);
}
