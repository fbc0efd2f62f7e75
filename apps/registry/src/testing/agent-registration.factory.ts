import { randomBytes } from 'node:crypto';
import type { RegisterAgentV1Request } from '@ioa/contracts';

/**
 * A valid registration with a unique name, for tests and benchmarks: override what the scenario is about.
 * Plain JSON on purpose — it is what an external agent sends.
 */
export function newAgentRegistration(overrides: Partial<RegisterAgentV1Request> = {}): RegisterAgentV1Request {
  const suffix = randomBytes(4).toString('hex');
  return {
    name: `agent-${suffix}`,
    description: 'Translates technical documents between English and German.',
    skills: [
      {
        id: 'translate',
        name: 'Translate',
        description: 'Translate a document, keeping its formatting.',
        tags: ['translation', 'german'],
        examples: ['Translate this README into German'],
      },
    ],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    owner: 'team-docs',
    endpoint: { kind: 'nats' },
    version: '1.0.0',
    metadata: {},
    ...overrides,
  };
}
