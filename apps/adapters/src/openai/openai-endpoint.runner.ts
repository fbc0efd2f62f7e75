import { Inject, Injectable } from '@nestjs/common';
import OpenAI from 'openai';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import {
  briefText,
  type EndpointProfile,
  type EndpointRunner,
  type EndpointTarget,
  type TaskOutcome,
  type TaskRun,
} from '../tasks/endpoint-runner.js';
import { describeError, ensureOk, EndpointCallError, fetchWithTimeout } from '../tasks/outbound-call.js';

const DEFAULT_SYSTEM_PROMPT = 'You are an agent in a team. Do the task you are given and answer with the result only.';

/**
 * `openai` endpoints: any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp, Ollama, LiteLLM…) with a
 * model name and a system prompt is an agent. A task is one chat completion: the system prompt, then the brief.
 * The `openai` package's own retries (with backoff, on connection errors, 408/429/5xx) and timeout apply.
 */
@Injectable()
export class OpenAiEndpointRunner implements EndpointRunner {
  readonly kind = 'openai' as const;

  constructor(@Inject(adaptersConfig.KEY) private readonly config: AdaptersConfig) {}

  describe(): Promise<EndpointProfile> {
    // A chat endpoint says nothing about what the agent is for: the registration names it.
    return Promise.resolve({});
  }

  /** Any HTTP answer from the base URL means the server is up (many local servers have no `GET /models`). */
  async probe(target: EndpointTarget): Promise<void> {
    const response = await fetchWithTimeout(`${target.url.replace(/\/+$/, '')}/models`, {
      timeoutMs: this.config.probeTimeoutMs,
      headers: target.secret ? { authorization: `Bearer ${target.secret}` } : {},
    });
    if (response.status >= 500) await ensureOk(response, `${target.url}/models`);
    await response.body?.cancel();
  }

  async run(task: TaskRun): Promise<TaskOutcome> {
    const { target } = task;
    const model = target.settings.model;
    if (!model) return { state: 'failed', content: 'This openai agent has no model configured' };
    const client = new OpenAI({
      baseURL: target.url,
      apiKey: target.secret ?? 'not-needed',
      timeout: target.settings.timeoutMs ?? this.config.callTimeoutMs,
      maxRetries: Math.max(0, this.config.callAttempts - 1),
    });
    let completion;
    try {
      completion = await client.chat.completions.create(
        {
          model,
          messages: [
            { role: 'system', content: target.settings.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
            { role: 'user', content: briefText(task.assignment.brief) },
          ],
        },
        { signal: task.signal },
      );
    } catch (error) {
      if (task.signal.aborted) throw error;
      throw new EndpointCallError(
        `Chat completion at ${target.url} (model ${model}) failed: ${describeError(error)}`,
        false,
      );
    }
    const content = completion.choices[0]?.message?.content ?? '';
    const usage = {
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
      modelCalls: 1,
    };
    if (!content.trim()) {
      const reason = completion.choices[0]?.finish_reason ?? 'no choice';
      return { state: 'failed', content: `The model answered with no content (finish reason: ${reason})`, usage };
    }
    return { state: 'completed', content, usage };
  }
}
