import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { ConfigModule } from '@nestjs/config';
import { startOpenAiFake, type OpenAiFake } from '@ioa/testing';
import { callFor, LANGUAGE_MODEL, ModelDecisionError, type LanguageModel } from './language-model.js';
import { OpenAiLanguageModel } from './openai-language-model.js';
import { OfflineLanguageModel } from './offline/offline-language-model.js';
import { TurnMovePurpose, type TurnMoveInput } from './purposes/turn.purpose.js';
import { LlmModule } from './llm.module.js';

const self = { agentId: randomUUID(), name: 'code-runner', skills: [] };
const other = { agentId: randomUUID(), name: 'writer', skills: [] };
const input: TurnMoveInput = {
  goal: 'Compute something',
  self,
  leaderId: self.agentId,
  turn: 1,
  maxTurns: 12,
  mustConclude: false,
  reason: 'first turn',
  members: [self, other],
  recentMessages: [],
  tasks: [],
};
interface JsonSchema {
  properties: Record<string, { enum?: string[]; items?: unknown }>;
  required: string[];
  $defs: Record<string, JsonSchema>;
}

const validMove = { type: 'discussion', content: 'Hello team', nextSpeaker: other.agentId };

describe('the OpenAI language model against a local OpenAI-compatible endpoint', () => {
  let fake: OpenAiFake;
  let model: OpenAiLanguageModel;

  beforeAll(async () => {
    fake = await startOpenAiFake();
    model = new OpenAiLanguageModel({
      baseUrl: fake.baseUrl,
      model: 'fake-model',
      transportRetries: 0,
      timeoutMs: 5000,
    });
  });

  afterAll(async () => {
    await fake?.stop();
  });

  beforeEach(() => {
    fake.requests.length = 0;
  });

  it('sends instructions, the input as JSON and the output JSON Schema, and returns the validated answer with usage', async () => {
    fake.enqueue({ json: { ...validMove, extra: 'stripped' }, usage: { promptTokens: 120, completionTokens: 30 } });
    const decision = await model.decide(callFor(TurnMovePurpose, input));
    expect(decision.output).toEqual(validMove);
    expect(decision.usage).toEqual({ promptTokens: 120, completionTokens: 30, modelCalls: 1 });

    const [request] = fake.requests;
    expect(request.model).toBe('fake-model');
    expect(request.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('Choose exactly one move'),
    });
    expect(JSON.parse(String(request.messages[1].content).replace(/^Input \(JSON\):\n/, ''))).toEqual(input);
    expect(request.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'turn_move', strict: false },
    });
    const schema = request.response_format?.json_schema?.schema as unknown as JsonSchema;
    expect(schema.properties.type.enum).toEqual([
      'discussion',
      'sync_task_assign',
      'async_task_assign',
      'pause',
      'conclude',
    ]);
    expect(schema.required).toEqual(expect.arrayContaining(['type', 'content']));
    expect(schema.properties.tasks.items).toEqual({ $ref: '#/$defs/TaskDraftV1' });
    expect(schema.$defs.TaskDraftV1.properties.assigneeId).toMatchObject({ format: 'uuid' });
  });

  it('retries after a non-JSON answer and after an answer failing validation, telling the model what was wrong', async () => {
    fake.enqueue(
      { content: 'Sure! I think we should discuss.', usage: { promptTokens: 100, completionTokens: 8 } },
      { json: { type: 'shout', content: '' }, usage: { promptTokens: 140, completionTokens: 9 } },
      {
        content: '```json\n' + JSON.stringify(validMove) + '\n```',
        usage: { promptTokens: 180, completionTokens: 12 },
      },
    );
    const decision = await model.decide(callFor(TurnMovePurpose, input));
    expect(decision.output).toEqual(validMove);
    expect(decision.usage).toEqual({ promptTokens: 420, completionTokens: 29, modelCalls: 3 });

    expect(fake.requests).toHaveLength(3);
    const second = fake.requests[1].messages;
    expect(second.at(-2)).toEqual({ role: 'assistant', content: 'Sure! I think we should discuss.' });
    expect(second.at(-1)?.content).toMatch(/not a JSON object/);
    const third = fake.requests[2].messages;
    expect(third).toHaveLength(6);
    expect(third.at(-1)?.content).toMatch(/type must be one of the following values/);
    expect(third.at(-1)?.content).toMatch(/content should not be empty/);
  });

  it('gives up after two retries with an error that carries the usage spent', async () => {
    fake.enqueue(
      { content: 'nope' },
      { content: '{"type": "discussion"' },
      { json: { type: 'pause', content: 'x', awaitTaskIds: ['not-a-uuid'] } },
    );
    const failure = await model.decide(callFor(TurnMovePurpose, input)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelDecisionError);
    expect(failure).toMatchObject({
      purpose: 'turn.move',
      attempts: 3,
      usage: { promptTokens: 150, completionTokens: 30, modelCalls: 3 },
      message: expect.stringMatching(/no valid answer for turn\.move in 3 attempts.*UUID/),
    });
    expect(fake.requests).toHaveLength(3);
  });

  it('reports an endpoint failure as a ModelDecisionError', async () => {
    fake.enqueue({ status: 500, error: 'upstream exploded' });
    await expect(model.decide(callFor(TurnMovePurpose, input))).rejects.toMatchObject({
      name: 'ModelDecisionError',
      message: expect.stringContaining('upstream exploded'),
    });
  });

  describe('LlmModule', () => {
    const saved = { base: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };
    afterEach(() => {
      for (const [name, value] of [
        ['OPENAI_BASE_URL', saved.base],
        ['OPENAI_API_KEY', saved.key],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    async function bootModel(): Promise<LanguageModel> {
      const module = await Test.createTestingModule({
        imports: [ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true }), LlmModule],
      }).compile();
      return module.get<LanguageModel>(LANGUAGE_MODEL);
    }

    it('provides the OpenAI model when OPENAI_BASE_URL is set, and it answers through the endpoint', async () => {
      process.env.OPENAI_BASE_URL = fake.baseUrl;
      delete process.env.OPENAI_API_KEY;
      const configured = await bootModel();
      expect(configured).toBeInstanceOf(OpenAiLanguageModel);
      fake.enqueue({ json: validMove });
      await expect(configured.decide(callFor(TurnMovePurpose, input))).resolves.toMatchObject({ output: validMove });
    });

    it('provides the offline model when no endpoint is configured', async () => {
      delete process.env.OPENAI_BASE_URL;
      delete process.env.OPENAI_API_KEY;
      const configured = await bootModel();
      expect(configured).toBeInstanceOf(OfflineLanguageModel);
      expect(configured.name).toBe('offline');
    });
  });
});
