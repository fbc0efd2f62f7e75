import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { Role, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import OpenAI from 'openai';
import {
  AssignTaskV1,
  RegisterAdaptedAgentV1,
  ReportTaskV1,
  subjectFor,
  WEBHOOK_SIGNATURE_HEADER,
  type AdaptedAgentV1,
  type ReportTaskV1Request,
  type TaskAssignmentV1Request,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  rawRequest,
  startOpenAiFake,
  startTestInfrastructure,
  type OpenAiFake,
  type TestInfrastructure,
} from '@ioa/testing';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { signBody } from '../../apps/adapters/src/http/webhook-signature.js';
import { startMcpTestServer, type McpTestServer } from '../../apps/adapters/src/testing/mcp-test-server.js';
import { startWebhookTestAgent, type WebhookTestAgent } from '../../apps/adapters/src/testing/webhook-test-agent.js';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { startA2aWeatherAgent, type A2aWeatherAgent } from '../../deploy/local/a2a-weather-agent.js';
import {
  benchCommand,
  benchLog,
  describeMachine,
  distribution,
  envNumber,
  loadAverage,
  ms,
  runDate,
  updateBenchmarksDoc,
  type Distribution,
} from './bench-support.js';

/**
 * What the adapters service adds to a task, per endpoint kind: the time from the task's assignment on
 * `ioa.agent.<id>.task.v1` to its `completed` report, against the same work done by calling the endpoint directly
 * with the same client library (one A2A streamed SendMessage, one chat completion, one webhook POST, one MCP
 * connect + tool call). The difference is the adapter: NATS hops, validation, the `working` report, and what the
 * adapter does per task (A2A: reads the agent card again; MCP: connects and lists tools). Local peers answer at
 * once, so the figures are the overhead itself. `npm run bench:adapters` (BENCH_ADAPTER_TASKS, default 30).
 */
const log = benchLog('adapters');
const SECRET = 'bench-webhook-secret-0123456789';

describe('adapters: added latency per task', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let nats: NatsConnection;
  let a2a: A2aWeatherAgent;
  let mcp: McpTestServer;
  let openAi: OpenAiFake;
  let webhook: WebhookTestAgent;
  const waiting = new Map<string, (report: ReportTaskV1Request) => void>();
  const tasks = envNumber('BENCH_ADAPTER_TASKS', 30);

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    [a2a, mcp, openAi, webhook] = await Promise.all([
      startA2aWeatherAgent(),
      startMcpTestServer(),
      startOpenAiFake(),
      startWebhookTestAgent(SECRET, 'sync'),
    ]);
    openAi.respondWith(() => ({ content: 'A short answer.' }));
    infrastructure.applyEnvironment({ ADAPTERS_CALLBACK_PORT: '0' });
    services.push(await createService(RegistryModule, { name: 'registry', logger: false }));
    services.push(await createService(AdaptersModule, { name: 'adapters', logger: false }));
    nats = await connectRaw(infrastructure.natsUrl);
    nats.subscribe(ReportTaskV1.subject, {
      callback: (_error, message: Msg) => {
        const report = JSON.parse(new TextDecoder().decode(message.data)) as ReportTaskV1Request;
        message.respond(JSON.stringify({ ok: true, data: { id: report.taskId, state: report.state } }));
        if (report.state !== 'working') waiting.get(report.taskId)?.(report);
      },
    });
  }, 180_000);

  afterAll(async () => {
    await nats?.close();
    for (const service of services.reverse()) await service.close();
    await Promise.allSettled([a2a?.stop(), mcp?.stop(), openAi?.stop(), webhook?.stop()]);
    await infrastructure?.stop();
  });

  async function register(body: Record<string, unknown>): Promise<string> {
    const reply = await rawRequest(nats, RegisterAdaptedAgentV1.subject, { owner: 'bench', ...body }, 30_000);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return (reply.data as AdaptedAgentV1).agent.id;
  }

  async function throughAdapter(agentId: string, description: string): Promise<number> {
    const assignment: TaskAssignmentV1Request = {
      taskId: randomUUID(),
      goalId: randomUUID(),
      groupId: randomUUID(),
      agentId,
      brief: { abstract: description, inputs: '', description, completionCriteria: 'Answered.' },
      deadline: new Date(Date.now() + 60_000).toISOString(),
      depth: 0,
      maxDepth: 0,
      attempt: 1,
    };
    const started = performance.now();
    const done = new Promise<ReportTaskV1Request>((resolve) => waiting.set(assignment.taskId, resolve));
    await rawRequest(nats, subjectFor(AssignTaskV1, agentId), assignment);
    const report = await done;
    waiting.delete(assignment.taskId);
    if (report.state !== 'completed') throw new Error(`task ${report.state}: ${report.content}`);
    return performance.now() - started;
  }

  async function measure(work: () => Promise<number>): Promise<Distribution> {
    for (let warmUp = 0; warmUp < 3; warmUp++) await work();
    const samples: number[] = [];
    for (let index = 0; index < tasks; index++) samples.push(await work());
    return distribution(samples);
  }

  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };

  function row(kind: string, adapter: Distribution, direct: Distribution): string {
    const ratio = (adapter.p50 / direct.p50).toFixed(2);
    return `| ${kind} | ${ms(direct.p50)} | ${ms(adapter.p50)} | ${ms(adapter.p90)} | **${ms(adapter.p50 - direct.p50)}** | ${ratio}× |`;
  }

  it('measures each endpoint kind', async () => {
    const rows: string[] = [];

    const a2aId = await register({ endpoint: { kind: 'a2a', url: a2a.url } });
    const a2aClient = await new ClientFactory().createFromUrl(a2a.url);
    const a2aRequest = (): SendMessageRequest => ({
      tenant: '',
      metadata: {},
      configuration: undefined,
      message: {
        messageId: randomUUID(),
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text', value: 'Rain in Lyon?' },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        taskId: '',
        contextId: '',
        metadata: {},
        extensions: [],
        referenceTaskIds: [],
      },
    });
    const a2aDirect = await measure(() =>
      timed(async () => {
        for await (const event of a2aClient.sendMessageStream(a2aRequest())) void event;
      }),
    );
    rows.push(row('a2a (streamed)', await measure(() => throughAdapter(a2aId, 'Rain in Lyon?')), a2aDirect));

    const openAiId = await register({
      name: 'bench-model',
      description: 'Answers briefly.',
      skills: [{ id: 'answer', name: 'Answer', description: 'Answer a question.', tags: [], examples: [] }],
      endpoint: { kind: 'openai', url: openAi.baseUrl, model: 'bench' },
    });
    const openAiClient = new OpenAI({ baseURL: openAi.baseUrl, apiKey: 'x', maxRetries: 0 });
    const openAiDirect = await measure(() =>
      timed(() =>
        openAiClient.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: 'Hello?' }] }),
      ),
    );
    rows.push(row('openai', await measure(() => throughAdapter(openAiId, 'Hello?')), openAiDirect));

    const webhookId = await register({
      name: 'bench-webhook',
      description: 'Echoes.',
      skills: [{ id: 'echo', name: 'Echo', description: 'Echo a text.', tags: [], examples: [] }],
      endpoint: { kind: 'http', url: webhook.url, secret: SECRET },
    });
    const webhookDirect = await measure(() =>
      timed(async () => {
        const body = JSON.stringify({ taskId: randomUUID(), brief: { description: 'hello' } });
        const response = await fetch(webhook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signBody(SECRET, body) },
          body,
        });
        await response.text();
      }),
    );
    rows.push(row('http (webhook, sync)', await measure(() => throughAdapter(webhookId, 'hello')), webhookDirect));

    const mcpId = await register({ endpoint: { kind: 'mcp', url: mcp.url } });
    const mcpDirect = await measure(() =>
      timed(async () => {
        const client = new McpClient({ name: 'bench', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
        await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
        await client.close();
      }),
    );
    rows.push(
      row('mcp (connect + 1 tool call)', await measure(() => throughAdapter(mcpId, 'Use add on 1 and 2.')), mcpDirect),
    );

    const table = [
      '| endpoint kind | direct call p50 | through the adapter p50 | p90 | added p50 | ratio p50 |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n');
    log(`\n${table}`);
    await updateBenchmarksDoc(
      'adapters',
      `## Agent adapters: latency added per task

\`\`\`bash
npm run bench:adapters     # BENCH_ADAPTER_TASKS=30 by default
\`\`\`

Code: \`test/bench/adapters-latency.bench.ts\`. For each endpoint kind, the time from a task's assignment on
\`ioa.agent.<id>.task.v1\` to its \`completed\` report through the adapters service, against the same work done by
calling the endpoint directly with the same client library (one streamed A2A \`SendMessage\`, one chat completion,
one signed webhook POST, one MCP connect + tool call). Local peers answer at once, so the difference is the adapter
itself: NATS hops, validation, the durable task ownership (a row and its lease before the ack), the \`working\`
report, and what each kind does per task (A2A reads the agent card again; MCP connects and lists the tools).
Sequential tasks after 3 warm-up ones, registry and adapters in one process on embedded PGlite.`,
      'latest',
      `Run ${runDate()}, \`${benchCommand('bench:adapters')}\`; ${describeMachine()}; load ${loadAverage()}.

${tasks} tasks per kind:

${table}`,
      ['latest'],
    );
    expect(rows).toHaveLength(4);
  }, 600_000);
});
