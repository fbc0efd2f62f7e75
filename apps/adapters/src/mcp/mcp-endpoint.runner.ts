import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import OpenAI from 'openai';
import { llmConfig, type LlmConfig } from '@ioa/llm';
import { slugOf, type AgentSkillV1, type ModelUsageV1 } from '@ioa/contracts';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import {
  briefText,
  type EndpointProfile,
  type EndpointRunner,
  type EndpointTarget,
  type TaskOutcome,
  type TaskRun,
} from '../tasks/endpoint-runner.js';
import { describeError, EndpointCallError, withRetries } from '../tasks/outbound-call.js';
import { planToolCalls, type ToolDescription } from './tool-plan.js';

const MAX_TOOL_PAGES = 20;
const RESULT_CHARS = 20_000;

interface ToolCallRecord {
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  isError: boolean;
}

/**
 * `mcp` endpoints: an MCP server over Streamable HTTP, through the v2 TypeScript SDK
 * (`@modelcontextprotocol/client`). Its tools (`listTools`, every page) become the agent's skills. A task runs a
 * tool-use loop: with a configured model (`OPENAI_BASE_URL`), the `openai` client's function calling decides the
 * calls; offline, a deterministic planner does (`tool-plan.ts`). Each call is reported as progress; a tool that
 * answers `isError` is reported and its text handed back to the model, never thrown.
 */
@Injectable()
export class McpEndpointRunner implements EndpointRunner, OnApplicationShutdown {
  readonly kind = 'mcp' as const;
  private readonly clients = new Map<string, { key: string; client: Promise<Client> }>();

  constructor(
    @Inject(adaptersConfig.KEY) private readonly config: AdaptersConfig,
    @Inject(llmConfig.KEY) private readonly llm: LlmConfig,
  ) {}

  async describe(target: EndpointTarget): Promise<EndpointProfile> {
    const quick = { ...target, settings: { ...target.settings, timeoutMs: this.config.probeTimeoutMs } };
    return this.withClient(
      quick,
      undefined,
      async (client) => {
        const tools = await this.listTools(client, quick);
        const server = client.getServerVersion();
        const skills: AgentSkillV1[] = tools.slice(0, 50).map((tool, index) => ({
          id: slugOf(tool.name, `tool-${index + 1}`),
          name: tool.name.slice(0, 120),
          description: (tool.description || tool.name).slice(0, 2000),
          tags: ['mcp-tool'],
          examples: [],
        }));
        return {
          name: server?.name ? slugOf(server.name, 'mcp-server') : undefined,
          description: client.getInstructions()?.slice(0, 4000) || undefined,
          skills: skills.length > 0 ? skills : undefined,
          version: server?.version && /^[0-9A-Za-z.+-]{1,40}$/.test(server.version) ? server.version : undefined,
        };
      },
      this.config.probeTimeoutMs,
      1,
    );
  }

  async probe(target: EndpointTarget): Promise<void> {
    await this.withClient(target, undefined, () => Promise.resolve(), this.config.probeTimeoutMs, 1);
  }

  async run(task: TaskRun): Promise<TaskOutcome> {
    const client = await this.clientFor(task.target, task.signal);
    try {
      const tools = await this.listTools(client, task.target, task.signal);
      if (tools.length === 0) return { state: 'failed', content: `The MCP server at ${task.target.url} has no tools` };
      const brief = briefText(task.assignment.brief);
      // Calls answered before an adapters restart are not made again (a tool may not be safe to repeat): their
      // recorded answers are handed back, so the loop carries on where it stopped.
      const done = [...(task.resumedFrom.mcpCalls ?? [])];
      const made: ToolCallRecord[] = [];
      const call = async (name: string, args: Record<string, unknown>): Promise<ToolCallRecord> => {
        const replayed = done.findIndex(
          (record) => record.name === name && JSON.stringify(record.arguments) === JSON.stringify(args),
        );
        if (replayed >= 0) return done.splice(replayed, 1)[0];
        const record = await this.callTool(client, task, name, args);
        made.push(record);
        await task.checkpoint({ mcpCalls: [...(task.resumedFrom.mcpCalls ?? []), ...made] });
        const verdict = record.isError ? 'reported an error' : 'answered';
        await task.progress(`Tool ${name}(${JSON.stringify(args)}) ${verdict}: ${record.output.slice(0, 500)}`);
        return record;
      };
      if (this.llm.provider === 'openai') return await this.modelLoop(brief, tools, call, task);
      const records: ToolCallRecord[] = [];
      for (const planned of planToolCalls(brief, tools, this.config.mcpMaxToolCalls)) {
        records.push(await call(planned.name, planned.arguments));
      }
      const content = records.map((record) => `${record.name}: ${record.output}`).join('\n');
      // The task fails only when every call failed: a partial answer is still an answer, and says what failed.
      return records.every((record) => record.isError)
        ? { state: 'failed', content: `Every tool call failed:\n${content}` }
        : { state: 'completed', content };
    } catch (error) {
      if (task.signal.aborted) throw error;
      // The connection may be what failed: the next task connects afresh.
      this.dropClient(task.target.agentId, client);
      if (error instanceof EndpointCallError) throw error;
      throw new EndpointCallError(`MCP server at ${task.target.url}: ${describeError(error)}`, false);
    }
  }

  /**
   * The agent's one MCP client, connected once and shared by its tasks (Streamable HTTP multiplexes requests), so a
   * task pays no initialize handshake. A new endpoint or credential replaces it; a failure drops it.
   */
  private async clientFor(target: EndpointTarget & { agentId: string }, signal: AbortSignal): Promise<Client> {
    const key = `${target.url}\n${target.secret ?? ''}\n${target.settings.timeoutMs ?? ''}`;
    const cached = this.clients.get(target.agentId);
    if (cached?.key === key) return raceAbort(cached.client, signal);
    if (cached) void cached.client.then((client) => this.dropClient(target.agentId, client)).catch(() => undefined);
    // Not tied to this task's signal: a canceled task must not close the connection the agent's other tasks use.
    const client = this.connect(target, undefined, this.timeoutOf(target), this.config.callAttempts);
    this.clients.set(target.agentId, { key, client });
    client.catch(() => {
      if (this.clients.get(target.agentId)?.client === client) this.clients.delete(target.agentId);
    });
    return raceAbort(client, signal);
  }

  private dropClient(agentId: string, client: Client): void {
    const cached = this.clients.get(agentId);
    if (cached) {
      void cached.client
        .then((current) => {
          if (current === client && this.clients.get(agentId) === cached) this.clients.delete(agentId);
        })
        .catch(() => undefined);
    }
    void client.close().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(clients.map(async (entry) => (await entry.client).close()));
  }

  /** The model picks the calls (function calling), sees each result, and answers when it is done. */
  private async modelLoop(
    brief: string,
    tools: ToolDescription[],
    call: (name: string, args: Record<string, unknown>) => Promise<ToolCallRecord>,
    task: TaskRun,
  ): Promise<TaskOutcome> {
    const openai = new OpenAI({
      baseURL: this.llm.baseUrl,
      apiKey: this.llm.apiKey ?? 'not-needed',
      timeout: this.llm.timeoutMs,
      maxRetries: this.llm.transportRetries,
    });
    const usage: ModelUsageV1 = { promptTokens: 0, completionTokens: 0, modelCalls: 0 };
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'Use the tools to do the task, then answer with the result only.' },
      { role: 'user', content: brief },
    ];
    const functions: OpenAI.Chat.ChatCompletionTool[] = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
    for (let calls = 0; ;) {
      const completion = await openai.chat.completions.create(
        { model: this.llm.model, messages, tools: functions },
        { signal: task.signal },
      );
      usage.modelCalls += 1;
      usage.promptTokens += completion.usage?.prompt_tokens ?? 0;
      usage.completionTokens += completion.usage?.completion_tokens ?? 0;
      const answer = completion.choices[0]?.message;
      const toolCalls = (answer?.tool_calls ?? []).filter((entry) => entry.type === 'function');
      if (!answer || toolCalls.length === 0) {
        const content = answer?.content ?? '';
        return content.trim()
          ? { state: 'completed', content, usage }
          : { state: 'failed', content: 'The model ended the tool loop without an answer', usage };
      }
      if (calls + toolCalls.length > this.config.mcpMaxToolCalls) {
        return { state: 'failed', content: `More than ${this.config.mcpMaxToolCalls} tool calls; stopped`, usage };
      }
      messages.push(answer);
      for (const toolCall of toolCalls) {
        calls += 1;
        let args: Record<string, unknown>;
        try {
          args = JSON.parse(toolCall.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          messages.push({ role: 'tool', tool_call_id: toolCall.id, content: 'Error: the arguments were not JSON' });
          continue;
        }
        const record = await call(toolCall.function.name, args);
        messages.push({
          role: 'tool',
          tool_call_id: toolCall.id,
          content: record.isError ? `Error: ${record.output}` : record.output,
        });
      }
    }
  }

  private async callTool(
    client: Client,
    task: TaskRun,
    name: string,
    args: Record<string, unknown>,
  ): Promise<ToolCallRecord> {
    try {
      const result = await client.callTool(
        { name, arguments: args },
        { signal: task.signal, timeout: this.timeoutOf(task.target) },
      );
      const output = textOfContent(result.content, result.structuredContent);
      return { name, arguments: args, output: output.slice(0, RESULT_CHARS), isError: result.isError === true };
    } catch (error) {
      if (task.signal.aborted) throw error;
      // A protocol error (unknown tool, invalid arguments) is the tool call's failure, reported like `isError`.
      return { name, arguments: args, output: describeError(error), isError: true };
    }
  }

  private async listTools(client: Client, target: EndpointTarget, signal?: AbortSignal): Promise<ToolDescription[]> {
    const tools: ToolDescription[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, {
        signal,
        timeout: this.timeoutOf(target),
      });
      for (const tool of result.tools) {
        tools.push({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
        });
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** Connects (with retries: the initialize handshake is idempotent), runs `work`, and always disconnects. */
  private async withClient<T>(
    target: EndpointTarget,
    signal: AbortSignal | undefined,
    work: (client: Client) => Promise<T>,
    timeoutMs = this.timeoutOf(target),
    attempts = this.config.callAttempts,
  ): Promise<T> {
    const client = await this.connect(target, signal, timeoutMs, attempts);
    try {
      return await work(client);
    } catch (error) {
      if (error instanceof EndpointCallError || signal?.aborted) throw error;
      throw new EndpointCallError(`MCP server at ${target.url}: ${describeError(error)}`, false);
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  /** Connects, with retries (the initialize handshake is idempotent), presenting the agent's bearer token if any. */
  private connect(
    target: EndpointTarget,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    attempts: number,
  ): Promise<Client> {
    return withRetries(`Connecting to the MCP server at ${target.url}`, { attempts, signal }, async () => {
      const candidate = new Client({ name: 'ioa-adapters', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(target.url), {
        requestInit: target.secret ? { headers: { authorization: `Bearer ${target.secret}` } } : undefined,
      });
      try {
        await candidate.connect(transport, { timeout: timeoutMs, signal });
      } catch (error) {
        await candidate.close().catch(() => undefined);
        throw error;
      }
      return candidate;
    });
  }

  private timeoutOf(target: EndpointTarget): number {
    return target.settings.timeoutMs ?? this.config.callTimeoutMs;
  }
}

/** The promise, or the signal's reason when it aborts first (the shared connection goes on for other tasks). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Text of an MCP tool result: text parts as they are, structured content and other parts as JSON. */
function textOfContent(content: unknown, structured: unknown): string {
  const parts = Array.isArray(content) ? content : [];
  const texts = parts.map((part: { type?: string; text?: string }) =>
    part.type === 'text' && typeof part.text === 'string' ? part.text : JSON.stringify(part),
  );
  if (texts.length === 0 && structured !== undefined) return JSON.stringify(structured);
  return texts.join('\n');
}
