import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
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
 * The gateway's A2A agent card: both bindings at v1.0, mirrored at v0.3 so older clients are served too, and the
 * skills of the network's online agents. `baseUrl` is where clients reach the gateway.
 */
export function buildAgentCard(baseUrl: string, agents: AgentCardV1[], version: string): AgentCard {
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
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [GOAL_SKILL, ...agents.map(skillOfAgent)],
    signatures: [],
  };
}
