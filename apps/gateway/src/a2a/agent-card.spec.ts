import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { AgentCardV1 } from '@ioa/contracts';
import { buildAgentCard, skillOfAgent } from './agent-card.js';

function agentCard(overrides: Partial<AgentCardV1> = {}): AgentCardV1 {
  return {
    id: '0b8f5a3e-2c4d-4e6f-8a1b-3c5d7e9f1a2b',
    name: 'weather-oracle',
    description: 'Answers questions about the weather.',
    skills: [
      {
        id: 'forecast',
        name: 'Weather forecast',
        description: 'Forecast for a city and a day.',
        tags: ['weather', 'forecast'],
        examples: ['Will it rain in Lyon tomorrow?'],
      },
      { id: 'wind', name: 'Wind', description: 'Wind speeds.', tags: ['weather'], examples: [] },
    ],
    ...overrides,
  } as AgentCardV1;
}

describe('the A2A agent card', () => {
  it('turns each agent of the network into one skill, with its skills’ tags and examples', () => {
    expect(skillOfAgent(agentCard())).toMatchObject({
      id: 'agent:weather-oracle',
      name: 'weather-oracle',
      description:
        'Answers questions about the weather. Weather forecast: Forecast for a city and a day. Wind: Wind speeds.',
      tags: ['weather', 'forecast'],
      examples: ['Will it rain in Lyon tomorrow?'],
    });
  });

  it('names both bindings at v1.0 and v0.3 under the base URL, with the goal skill first', () => {
    const card = buildAgentCard('https://ioa.example', [agentCard()], '0.1.0');
    expect(card.supportedInterfaces.map((entry) => [entry.protocolBinding, entry.protocolVersion, entry.url])).toEqual(
      expect.arrayContaining([
        ['JSONRPC', '1.0', 'https://ioa.example/a2a/jsonrpc'],
        ['HTTP+JSON', '1.0', 'https://ioa.example/a2a/rest'],
        ['JSONRPC', '0.3', 'https://ioa.example/a2a/jsonrpc'],
        ['HTTP+JSON', '0.3', 'https://ioa.example/a2a/rest'],
      ]),
    );
    expect(card.skills.map((skill) => skill.id)).toEqual(['goal', 'agent:weather-oracle']);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
  });

  it('declares how to authenticate: an API key (header or bearer), and OIDC bearer tokens when an issuer is set', () => {
    const withoutIssuer = buildAgentCard('https://ioa.example', [], '0.1.0');
    expect(Object.keys(withoutIssuer.securitySchemes)).toEqual(['apiKey', 'bearer']);
    expect(withoutIssuer.securitySchemes.apiKey.scheme).toMatchObject({
      $case: 'apiKeySecurityScheme',
      value: { location: 'header', name: 'X-API-Key' },
    });
    // Any one scheme is enough: one requirement per scheme, not one requirement naming all of them.
    expect(withoutIssuer.securityRequirements).toEqual([
      { schemes: { apiKey: { list: [] } } },
      { schemes: { bearer: { list: [] } } },
    ]);
    const withIssuer = buildAgentCard('https://ioa.example', [], '0.1.0', 'https://login.example');
    expect(withIssuer.securitySchemes.oidc.scheme).toMatchObject({
      $case: 'openIdConnectSecurityScheme',
      value: { openIdConnectUrl: 'https://login.example/.well-known/openid-configuration' },
    });
    expect(withIssuer.securityRequirements).toHaveLength(3);
  });
});
