import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { parse } from 'yaml';
import {
  ALL_CONTRACTS,
  MAX_STORED_INTEGER,
  PAYLOAD_BOUNDS,
  RegisterAgentV1,
  SearchAgentsV1,
  type AnyContract,
} from '@ioa/contracts';
import { SAMPLE_AGENTS } from '../local/demo-client.js';
import {
  ASYNCAPI_FILE,
  contractArtefacts,
  operationIdOf,
  SCHEMA_DIR,
  withGeneratedSection,
} from './contract-artefacts.js';

// ajv-formats is CommonJS with a default export; under native ESM the function sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const artefacts = contractArtefacts(ALL_CONTRACTS, { version: '0.0.0-test', contractDoc: '# Contract\n' });

function schemaOf(name: string): Record<string, unknown> {
  const file = artefacts.get(`${SCHEMA_DIR}/${name}.json`);
  if (!file) throw new Error(`no schema file for ${name}`);
  return JSON.parse(file) as Record<string, unknown>;
}

function compile(name: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(schemaOf(name));
}

/** What the services do with a payload: class-transformer, then class-validator with whitelist. */
function acceptedByServices(payloadClass: new () => object, body: unknown): boolean {
  const instance = plainToInstance(payloadClass, body);
  return validateSync(instance, { whitelist: true }).length === 0;
}

const payloadNames = (contract: AnyContract) =>
  contract.kind === 'request' ? [contract.request.name, contract.response.name] : [contract.payload.name];

describe('contract artefacts', () => {
  it('publishes a compilable JSON Schema for every payload class of every subject', () => {
    for (const name of ALL_CONTRACTS.flatMap(payloadNames)) {
      expect(() => compile(name)).not.toThrow();
    }
    for (const name of ['ReplyEnvelope', 'ErrorBody', 'ErrorReply']) expect(() => compile(name)).not.toThrow();
  });

  it('includes nested classes in each schema, so one file is enough to validate a payload', () => {
    const schema = schemaOf('RegisterAgentV1Response');
    expect(Object.keys(schema.$defs as object)).toEqual(
      expect.arrayContaining(['AgentCardV1', 'AgentSkillV1', 'AgentEndpointV1', 'AgentProviderV1']),
    );
  });

  it('accepts what the services accept and rejects what they reject (demo agents, broken cards)', () => {
    const validate = compile(RegisterAgentV1.request.name);
    for (const card of SAMPLE_AGENTS) {
      expect(validate(card)).toBe(true);
      expect(acceptedByServices(RegisterAgentV1.request as new () => object, card)).toBe(true);
    }
    const { skills: _skills, ...withoutSkills } = SAMPLE_AGENTS[0];
    const broken = [
      withoutSkills,
      { ...SAMPLE_AGENTS[0], name: 'Not A Slug' },
      { ...SAMPLE_AGENTS[0], endpoint: { kind: 'carrier-pigeon' } },
    ];
    for (const card of broken) {
      expect(validate(card)).toBe(false);
      expect(acceptedByServices(RegisterAgentV1.request as new () => object, card)).toBe(false);
    }
  });

  it('treats fields with defaults as optional, as the services do', () => {
    const validate = compile(SearchAgentsV1.request.name);
    expect(validate({ queries: ['translate a contract'] })).toBe(true);
    expect(acceptedByServices(SearchAgentsV1.request as new () => object, { queries: ['translate'] })).toBe(true);
    expect(schemaOf('SearchAgentsV1Request').properties).toMatchObject({ topK: { default: 10 } });
  });

  it('gives every subject a unique AsyncAPI operation whose references all resolve', () => {
    const ids = ALL_CONTRACTS.map((contract) => operationIdOf(contract.subject));
    expect(new Set(ids).size).toBe(ids.length);

    const document = parse(artefacts.get(ASYNCAPI_FILE) as string) as Record<string, unknown>;
    expect(document.asyncapi).toBe('3.0.0');
    expect(Object.keys(document.operations as object)).toEqual(ids);
    const resolve = (pointer: string) =>
      pointer
        .slice(2)
        .split('/')
        .reduce<unknown>((node, token) => (node as Record<string, unknown> | undefined)?.[token], document);
    const refs: string[] = [];
    const collect = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value);
          else collect(value);
        }
      }
    };
    collect(document);
    expect(refs.length).toBeGreaterThan(ALL_CONTRACTS.length);
    expect(refs.filter((ref) => resolve(ref) === undefined)).toEqual([]);
  });

  it('refreshes only the generated section of docs/contract.md', () => {
    const once = withGeneratedSection('# Contract\n\nHand-written prose.\n', ALL_CONTRACTS);
    const twice = withGeneratedSection(once.replace('Hand-written prose.', 'Edited prose.'), ALL_CONTRACTS);
    expect(twice).toContain('Edited prose.');
    expect(twice.split('BEGIN GENERATED').length).toBe(2);
    for (const contract of ALL_CONTRACTS) expect(twice).toContain(`\`${contract.subject}\``);
  });

  it('states the payload bounds the services check before validation', () => {
    const submit = schemaOf('SubmitGoalV1Request');
    expect(submit['x-ioa-bounds']).toMatchObject({
      maxBytes: PAYLOAD_BOUNDS.maxBytes,
      maxDepth: PAYLOAD_BOUNDS.maxDepth,
    });
    const goal = compile('SubmitGoalV1Request');
    expect(goal({ goal: 'Summarise the report' })).toBe(true);
    expect(goal({ goal: '   ' })).toBe(false);
    expect(goal({ goal: 'x', maxDepth: true })).toBe(false);
    expect(goal({ goal: 'x', budget: { tokens: null } })).toBe(false);
    expect(goal({ goal: 'x', budget: { tokens: MAX_STORED_INTEGER + 1 } })).toBe(false);

    const assignment = schemaOf('TaskAssignmentV1Request').properties as Record<string, Record<string, unknown>>;
    expect(assignment.depth).toMatchObject({ maximum: Number.MAX_SAFE_INTEGER });
    const card = schemaOf('RegisterAgentV1Request');
    expect((card.properties as Record<string, Record<string, unknown>>).metadata).toMatchObject({
      maxProperties: PAYLOAD_BOUNDS.maxObjectKeys,
    });

    const update = compile('UpdateAgentV1Request');
    const id = '5f0c6b1e-8f1a-4c1e-9d7c-0e1d2c3b4a59';
    expect(update({ id, owner: 'acme', documentationUrl: null })).toBe(true);
    expect(update({ id, owner: 'acme', description: null })).toBe(false);
  });
});
