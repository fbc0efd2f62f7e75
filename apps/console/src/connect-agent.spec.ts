import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { RegisterAdaptedAgentV1Request } from '@ioa/contracts';
import {
  EMPTY_CONNECT_AGENT,
  newSigningSecret,
  registrationOf,
  skillsFromLines,
  type ConnectAgentValues,
} from './connect-agent.js';

const OWNER = 'acct-7';

/** What the contract's own validation says of a registration the form built: none of its problems, ideally. */
function contractProblems(values: ConnectAgentValues): string[] {
  const request = plainToInstance(RegisterAdaptedAgentV1Request, registrationOf(values, OWNER));
  return validateSync(request).flatMap(function messages(error): string[] {
    return [...Object.values(error.constraints ?? {}), ...(error.children ?? []).flatMap(messages)];
  });
}

describe('connecting an agent from the console', () => {
  it('sends only the URL for an A2A agent, whose card describes it', () => {
    expect(registrationOf({ ...EMPTY_CONNECT_AGENT, url: '  http://weather.example:4000 ' }, OWNER)).toEqual({
      owner: OWNER,
      endpoint: { kind: 'a2a', url: 'http://weather.example:4000' },
    });
  });

  it('sends the bearer token of an A2A or MCP endpoint as its apiKey, and never a model', () => {
    const request = registrationOf(
      { ...EMPTY_CONNECT_AGENT, kind: 'mcp', url: 'http://tools.example/mcp', credential: 'tok', model: 'left-over' },
      OWNER,
    );
    expect(request.endpoint).toEqual({ kind: 'mcp', url: 'http://tools.example/mcp', apiKey: 'tok' });
  });

  it('describes an OpenAI-compatible model: model, prompt, key, name, description and skills', () => {
    const values: ConnectAgentValues = {
      kind: 'openai',
      url: 'http://127.0.0.1:11434/v1',
      credential: 'sk-local',
      model: 'llama3.1',
      systemPrompt: 'You summarise contracts.',
      name: 'contract-summariser',
      description: 'Summarises contracts in plain words.',
      skills: 'Summarise a contract: lists its parties and obligations\nTranslate legalese',
    };
    expect(registrationOf(values, OWNER)).toEqual({
      owner: OWNER,
      endpoint: {
        kind: 'openai',
        url: 'http://127.0.0.1:11434/v1',
        apiKey: 'sk-local',
        model: 'llama3.1',
        systemPrompt: 'You summarise contracts.',
      },
      name: 'contract-summariser',
      description: 'Summarises contracts in plain words.',
      skills: [
        {
          id: 'summarise-a-contract',
          name: 'Summarise a contract',
          description: 'lists its parties and obligations',
          tags: [],
          examples: [],
        },
        {
          id: 'translate-legalese',
          name: 'Translate legalese',
          description: 'Translate legalese',
          tags: [],
          examples: [],
        },
      ],
    });
    expect(contractProblems(values)).toEqual([]);
  });

  it('sends a webhook’s signing secret as its secret, which the contract accepts', () => {
    const values: ConnectAgentValues = {
      ...EMPTY_CONNECT_AGENT,
      kind: 'http',
      url: 'https://hooks.example/ioa',
      credential: newSigningSecret(),
      name: 'invoice-checker',
      description: 'Checks invoices.',
      skills: 'Check an invoice',
    };
    expect(registrationOf(values, OWNER).endpoint).toEqual({
      kind: 'http',
      url: 'https://hooks.example/ioa',
      secret: values.credential,
    });
    expect(contractProblems(values)).toEqual([]);
  });

  it('leaves a bad URL for the contract to refuse, with its message', () => {
    expect(contractProblems({ ...EMPTY_CONNECT_AGENT, url: 'weather.example' })).toEqual(['url must be a URL address']);
  });

  it('makes skill ids the registry accepts, unique within the agent', () => {
    expect(skillsFromLines('Résumé écrit!\n\n  Résumé écrit  \n***').map((skill) => skill.id)).toEqual([
      'resume-ecrit',
      'resume-ecrit-2',
      'skill',
    ]);
    expect(skillsFromLines(`${'x'.repeat(80)} tail`)[0].id).toHaveLength(63);
  });

  it('makes signing secrets of 64 hex digits from the random source', () => {
    expect(newSigningSecret((bytes) => bytes.fill(171))).toBe('ab'.repeat(32));
    expect(newSigningSecret()).toMatch(/^[0-9a-f]{64}$/);
    expect(newSigningSecret()).not.toBe(newSigningSecret());
  });
});
