import { Inject, Injectable } from '@nestjs/common';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import OpenAI from 'openai';
import { llmConfig, type LlmConfig } from '@ioa/llm';
import type { AgentSkillV1, ModelUsageV1 } from '@ioa/contracts';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import {
  briefText,
  slugOf,
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
export class McpEndpointRunner implements EndpointRunner {
  readonly kind = 'mcp' as const;

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
    return this.withClient(task.target, task.signal, async (client) => {
      const tools = await this.listTools(client, task.target, task.signal);
      if (tools.length === 0) return { state: 'failed', content: `The MCP server at ${task.target.url} has no tools` };
      const brief = briefText(task.assignment.brief);
      const call = async (name: string, args: Record<string, unknown>): Promise<ToolCallRecord> => {
        const record = await this.callTool(client, task, name, args);
        const verdict = record.isError ? 'reported an error' : 'answered';
        await task.progress(`Tool ${name}(${JSON.stringify(args)}) ${verdict}: ${record.output.slice(0, 500)}`);
        return record;
      };
      if (this.llm.provider === 'openai') return this.modelLoop(brief, tools, call, task);
      const records: ToolCallRecord[] = [];
      for (const planned of planToolCalls(brief, tools, this.config.mcpMaxToolCalls)) {
        records.push(await call(planned.name, planned.arguments));
      }
      const content = records.map((record) => `${record.name}: ${record.output}`).join('\n');
      // The task fails only when every call failed: a partial answer is still an answer, and says what failed.
      return records.every((record) => record.isError)
        ? { state: 'failed', content: `Every tool call failed:\n${content}` }
        : { state: 'completed', content };
    });
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
    const client = await withRetries(
      `Connecting to the MCP server at ${target.url}`,
      { attempts, signal },
      async () => {
        const candidate = new Client({ name: 'ioa-adapters', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(target.url));
        try {
          await candidate.connect(transport, { timeout: timeoutMs, signal });
        } catch (error) {
          await candidate.close().catch(() => undefined);
          throw error;
        }
        return candidate;
      },
    );
    try {
      return await work(client);
    } catch (error) {
      if (error instanceof EndpointCallError || signal?.aborted) throw error;
      throw new EndpointCallError(`MCP server at ${target.url}: ${describeError(error)}`, false);
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  private timeoutOf(target: EndpointTarget): number {
    return target.settings.timeoutMs ?? this.config.callTimeoutMs;
  }
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
