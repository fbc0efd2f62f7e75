import { cardFieldsOf, entityColumnsOf, toAgentCard } from './agent-card.mapper.js';
import { newAgentEntity } from '../testing/agent-entity.factory.js';

describe('mapping a stored agent to its card', () => {
  it('puts every card field on the wire with ISO timestamps', () => {
    const agent = newAgentEntity({
      status: 'offline',
      revision: 3,
      lastSeenAt: new Date('2026-01-02T03:05:00.000Z'),
      metadata: { region: 'eu' },
    });

    expect(toAgentCard(agent)).toEqual({
      id: agent.id,
      name: 'translator',
      description: 'Translates documents.',
      skills: agent.skills,
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      owner: 'team-docs',
      endpoint: { kind: 'nats' },
      version: '1.0.0',
      metadata: { region: 'eu' },
      status: 'offline',
      revision: 3,
      registeredAt: '2026-01-02T03:04:05.678Z',
      updatedAt: '2026-01-02T03:04:05.678Z',
      lastSeenAt: '2026-01-02T03:05:00.000Z',
    });
  });

  it('leaves absent optional fields out instead of sending null', () => {
    const card = toAgentCard(newAgentEntity({ provider: null, documentationUrl: null }));
    expect(card).not.toHaveProperty('provider');
    expect(card).not.toHaveProperty('documentationUrl');
  });

  it('sends provider and documentation url when present', () => {
    const card = toAgentCard(
      newAgentEntity({ provider: { organization: 'ACME' }, documentationUrl: 'https://acme.example/docs' }),
    );
    expect(card).toMatchObject({ provider: { organization: 'ACME' }, documentationUrl: 'https://acme.example/docs' });
  });

  it('copies only contract fields out of jsonb columns', () => {
    const stray = { id: 's', name: 'S', description: 'd', tags: [], examples: [], internalNote: 'x' };
    const card = toAgentCard(newAgentEntity({ skills: [stray], endpoint: { kind: 'nats', secret: 'x' } as never }));
    expect(card.skills[0]).not.toHaveProperty('internalNote');
    expect(card.endpoint).toEqual({ kind: 'nats' });
  });

  it('round-trips card fields through entity columns, with null for absent optional fields', () => {
    const fields = cardFieldsOf(newAgentEntity());
    expect(entityColumnsOf(fields)).toMatchObject({ provider: null, documentationUrl: null, name: 'translator' });
    expect(cardFieldsOf(entityColumnsOf(fields))).toEqual(fields);
  });
});
