import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import {
  AssignTaskV1,
  RegisterAdaptedAgentV1,
  ReportTaskV1,
  subjectFor,
  type AdaptedAgentV1,
  type ReportTaskV1Request,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { startMcpTestServer, type McpTestServer } from '../../apps/adapters/src/testing/mcp-test-server.js';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';

interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content?: string | null; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; parameters: unknown } }>;
}

/**
 * A local OpenAI-compatible endpoint that uses function calling the way a model does: first it asks for `add`
 * with arguments, then (seeing the tool's answer in a `tool` message) it answers with text. It speaks the wire
 * protocol (`tool_calls`, `finish_reason: tool_calls`), so the adapter's real `openai` client drives it.
 */
async function startToolCallingModel(): Promise<{ baseUrl: string; requests: ChatRequest[]; stop(): Promise<void> }> {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      requests.push(body);
      const toolAnswer = body.messages.find((message) => message.role === 'tool');
      const message = toolAnswer
        ? { role: 'assistant', content: `The sum is ${toolAnswer.content}.`, refusal: null }
        : {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":20,"b":22}' } }],
          };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message, logprobs: null, finish_reason: toolAnswer ? 'stop' : 'tool_calls' }],
          usage: { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** With a model configured (OPENAI_BASE_URL), an MCP agent's task is a function-calling loop over its tools. */
describe('MCP agent driven by a model with function calling', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let nats: NatsConnection;
  let mcp: McpTestServer;
  let model: Awaited<ReturnType<typeof startToolCallingModel>>;
  const reports: ReportTaskV1Request[] = [];

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    [mcp, model] = await Promise.all([startMcpTestServer(), startToolCallingModel()]);
    infrastructure.applyEnvironment({
      OPENAI_BASE_URL: model.baseUrl,
      LLM_MODEL: 'tool-user',
      ADAPTERS_CALLBACK_PORT: '0',
    });
    services.push(await createService(RegistryModule, { name: 'registry', logger: false }));
    services.push(await createService(AdaptersModule, { name: 'adapters', logger: false }));
    nats = await connectRaw(infrastructure.natsUrl);
    nats.subscribe(ReportTaskV1.subject, {
      callback: (_error, message: Msg) => {
        const report = JSON.parse(new TextDecoder().decode(message.data)) as ReportTaskV1Request;
        reports.push(report);
        message.respond(JSON.stringify({ ok: true, data: { id: report.taskId } }));
      },
    });
  }, 120_000);

  afterAll(async () => {
    await nats?.close();
    for (const service of services.reverse()) await service.close();
    await Promise.allSettled([mcp?.stop(), model?.stop()]);
    await infrastructure?.stop();
  });

  it('offers the tools as functions, calls the one the model asks for, and returns the model’s answer', async () => {
    const registered = await rawRequest(nats, RegisterAdaptedAgentV1.subject, {
      owner: 'team-tools',
      endpoint: { kind: 'mcp', url: mcp.url },
    });
    const agentId = (registered.data as AdaptedAgentV1).agent.id;
    const taskId = randomUUID();
    await rawRequest(nats, subjectFor(AssignTaskV1, agentId), {
      taskId,
      goalId: randomUUID(),
      groupId: randomUUID(),
      agentId,
      brief: {
        abstract: 'A sum',
        inputs: '',
        description: 'What is twenty plus twenty-two?',
        completionCriteria: 'The sum.',
      },
      deadline: new Date(Date.now() + 60_000).toISOString(),
      depth: 0,
      maxDepth: 0,
      attempt: 1,
    });
    const final = await expectEventually(() =>
      reports.find((report) => report.taskId === taskId && report.state !== 'working'),
    );
    expect(final).toMatchObject({
      state: 'completed',
      content: 'The sum is 42.',
      usage: { modelCalls: 2, promptTokens: 80, completionTokens: 16 },
    });
    expect(mcp.calls).toEqual([{ name: 'add', arguments: { a: 20, b: 22 } }]);
    expect(reports.some((report) => report.content === 'Tool add({"a":20,"b":22}) answered: 42')).toBe(true);
    expect(model.requests[0].model).toBe('tool-user');
    expect(model.requests[0].tools?.map((tool) => tool.function.name).sort()).toEqual(['add', 'capital_of', 'shout']);
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: '42' });
  });
});
