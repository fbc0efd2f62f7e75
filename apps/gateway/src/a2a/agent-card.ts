import {
  A2A_PROTOCOL_VERSION,
  type AgentCard,
  type AgentSkill,
  type SecurityRequirement,
  type SecurityScheme,
} from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { AgentCardV1 } from '@ioa/contracts';

/** Where the facade's bindings are mounted on the gateway. */
export const A2A_JSON_RPC_PATH = '/a2a/jsonrpc';
export const A2A_REST_PATH = '/a2a/rest';

/** The skill every card has, whoever is online: the platform takes any goal and forms a team for it. */
const GOAL_SKILL: AgentSkill = {
  id: 'goal',
  name: 'Reach a goal with a team of agents',
  description:
    'Send a goal in plain language. The Internet of Agents finds the agents able to reach it, forms a team, lets ' +
    'it discuss and hand out tasks, and answers with the conclusion. The team may ask you a question ' +
    '(input-required): reply on the same task. A later message in the same context follows the goal up.',
  tags: ['goal', 'team', 'multi-agent'],
  examples: ['Run `console.log(6 * 7)`, then write a short report about the result.'],
  inputModes: ['text/plain'],
  outputModes: ['text/plain'],
  securityRequirements: [],
};

/** One skill per agent of the network: what the platform can bring to a goal. */
export function skillOfAgent(agent: AgentCardV1): AgentSkill {
  const skills = agent.skills.map((skill) => `${skill.name}: ${skill.description}`).join(' ');
  return {
    id: `agent:${agent.name}`,
    name: agent.name,
    description: skills ? `${agent.description} ${skills}` : agent.description,
    tags: [...new Set(agent.skills.flatMap((skill) => skill.tags ?? []))],
    examples: agent.skills.flatMap((skill) => skill.examples ?? []).slice(0, 5),
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
    securityRequirements: [],
  };
}

/**
 * How to authenticate, as the card states it: the REST credentials, either an account's API key (in `X-API-Key`
 * or as a bearer token) or, when an OpenID Connect issuer is configured, its JWT as a bearer token. Any one scheme
 * is enough, hence one requirement per scheme.
 */
export function securityOfCard(oidcIssuer: string | undefined): {
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
} {
  const securitySchemes: Record<string, SecurityScheme> = {
    apiKey: {
      scheme: {
        $case: 'apiKeySecurityScheme',
        value: { description: "An account's API key (ioa_…).", location: 'header', name: 'X-API-Key' },
      },
    },
    bearer: {
      scheme: {
        $case: 'httpAuthSecurityScheme',
        value: {
          description: oidcIssuer
            ? "An account's API key, or a JWT from the OpenID Connect issuer, as a bearer token."
            : "An account's API key as a bearer token.",
          scheme: 'Bearer',
          bearerFormat: oidcIssuer ? 'API key or JWT' : 'API key',
        },
      },
    },
  };
  if (oidcIssuer) {
    securitySchemes.oidc = {
      scheme: {
        $case: 'openIdConnectSecurityScheme',
        value: {
          description: 'Tokens of this issuer, sent as a bearer token.',
          openIdConnectUrl: `${oidcIssuer}/.well-known/openid-configuration`,
        },
      },
    };
  }
  const securityRequirements = Object.keys(securitySchemes).map((name) => ({ schemes: { [name]: { list: [] } } }));
  return { securitySchemes, securityRequirements };
}

/**
 * The gateway's A2A agent card: both bindings at v1.0, mirrored at v0.3 so older clients are served too, the
 * skills of the network's online agents, and its security schemes. `baseUrl` is where clients reach the gateway.
 */
export function buildAgentCard(
  baseUrl: string,
  agents: AgentCardV1[],
  version: string,
  oidcIssuer?: string,
): AgentCard {
  return {
    name: 'Internet of Agents',
    description:
      'A network of AI agents that work together: send a goal, and a team of the agents best suited to it forms, ' +
      'discusses, splits the work into tasks and concludes.',
    supportedInterfaces: duplicateInterfacesForLegacy(
      [
        {
          url: `${baseUrl}${A2A_JSON_RPC_PATH}`,
          protocolBinding: 'JSONRPC',
          tenant: '',
          protocolVersion: A2A_PROTOCOL_VERSION,
        },
        {
          url: `${baseUrl}${A2A_REST_PATH}`,
          protocolBinding: 'HTTP+JSON',
          tenant: '',
          protocolVersion: A2A_PROTOCOL_VERSION,
        },
      ],
      ['JSONRPC', 'HTTP+JSON'],
    ),
    provider: { organization: 'Internet of Agents', url: baseUrl },
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    ...securityOfCard(oidcIssuer),
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [GOAL_SKILL, ...agents.map(skillOfAgent)],
    signatures: [],
  };
}
