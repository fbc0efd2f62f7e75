import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ContractError } from '@ioa/contracts';
import { validatePayload } from '@ioa/messaging';
import { ModelDecisionError, type LanguageModel, type ModelCall, type ModelDecision } from './language-model.js';
import { jsonSchemaFor } from './output-schema.js';
import { addUsage, emptyUsage } from './usage.js';

export interface OpenAiLanguageModelOptions {
  /** e.g. `https://api.openai.com/v1` or a local OpenAI-compatible server. */
  baseUrl?: string;
  apiKey?: string;
  model: string;
  /** Extra attempts after an invalid answer (not JSON, or not matching the schema), each told what was wrong. */
  invalidOutputRetries?: number;
  /** The client's own retries of failed HTTP calls (429, 5xx, connection errors). */
  transportRetries?: number;
  timeoutMs?: number;
  temperature?: number;
}

/**
 * A `LanguageModel` over any OpenAI-compatible chat completions endpoint (the `openai` package). The call's
 * instructions become the system message, its input is sent as JSON, and the answer is requested as JSON matching
 * the output class's schema (`response_format: json_schema`). An answer that is not JSON or fails validation is
 * sent back with the errors, up to `invalidOutputRetries` times; usage adds up every attempt (the API's `usage`).
 */
export class OpenAiLanguageModel implements LanguageModel {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly invalidOutputRetries: number;

  constructor(private readonly options: OpenAiLanguageModelOptions) {
    this.name = `openai:${options.model}`;
    this.invalidOutputRetries = options.invalidOutputRetries ?? 2;
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // Local OpenAI-compatible servers often need no key, but the client insists on one.
      apiKey: options.apiKey ?? 'not-needed',
      maxRetries: options.transportRetries ?? 2,
      timeout: options.timeoutMs ?? 60_000,
    });
  }

  async decide<T extends object>(call: ModelCall<T>): Promise<ModelDecision<T>> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: systemPrompt(call) },
      { role: 'user', content: `Input (JSON):\n${JSON.stringify(call.input, null, 2)}` },
    ];
    const schema = jsonSchemaFor(call.outputType);
    let usage = emptyUsage();
    let lastProblem = '';
    const attempts = this.invalidOutputRetries + 1;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await this.client.chat.completions.create({
          model: this.options.model,
          messages,
          temperature: this.options.temperature ?? 0.2,
          response_format: {
            type: 'json_schema',
            // Not `strict`: strict mode requires every property to be required, and our outputs have optional ones.
            json_schema: { name: call.purpose.replace(/[^A-Za-z0-9_-]/g, '_'), schema, strict: false },
          },
        });
      } catch (error) {
        throw new ModelDecisionError(
          call.purpose,
          `The model endpoint failed for ${call.purpose}: ${error instanceof Error ? error.message : String(error)}`,
          usage,
          attempt,
          { cause: error },
        );
      }
      usage = addUsage(usage, {
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
        modelCalls: 1,
      });
      const message = completion.choices[0]?.message;
      const content = message?.content ?? '';
      const parsed = parseJson(content);
      if (parsed.ok) {
        try {
          return { output: await validatePayload(call.outputType, parsed.value), usage };
        } catch (error) {
          lastProblem = error instanceof ContractError ? error.message : String(error);
        }
      } else {
        lastProblem = message?.refusal
          ? `You refused: ${message.refusal}`
          : `Your answer is not a JSON object (${parsed.reason}).`;
      }
      messages.push(
        { role: 'assistant', content: content.length > 0 ? content : '(empty)' },
        {
          role: 'user',
          content: `${lastProblem}\nAnswer again with one JSON object that satisfies the schema, and nothing else.`,
        },
      );
    }
    throw new ModelDecisionError(
      call.purpose,
      `The model gave no valid answer for ${call.purpose} in ${attempts} attempts; last problem: ${lastProblem}`,
      usage,
      attempts,
    );
  }
}

function systemPrompt(call: ModelCall<object>): string {
  return [
    `Task: ${call.purpose}.`,
    call.instructions,
    'Answer with a single JSON object matching the response schema — no prose, no code fences.',
  ].join('\n\n');
}

/** Parses the answer; tolerates a ```json fence around it, which some models add despite being told not to. */
function parseJson(content: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const unfenced = content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  try {
    const value = JSON.parse(unfenced) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, reason: 'not an object' };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
