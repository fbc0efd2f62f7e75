import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import {
  AssignTaskV1,
  MessagePostedV1,
  RegisterAdaptedAgentV1,
  subjectFor,
  type AdaptedAgentV1,
  type MessagePostedV1Event,
  type ReportTaskV1Request,
  type TaskAssignmentV1Request,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { startA2aGatedAgent } from '../../apps/adapters/src/testing/a2a-gated-agent.js';
import { startMcpTestServer, type McpTestServer } from '../../apps/adapters/src/testing/mcp-test-server.js';
import { startWebhookTestAgent, type WebhookTestAgent } from '../../apps/adapters/src/testing/webhook-test-agent.js';
import { finalReportOf, newTaskAssignment, recordTaskReports } from '../../apps/adapters/src/testing/scheduler-side.js';

const OWNER = 'team-restart@example.org';
const SECRET = 'a-webhook-secret-of-some-length';

/**
 * Tasks in flight survive an adapters restart. The adapters service is stopped while a real A2A agent
 * (`@a2a-js/sdk`) works on a task, and the restarted service (same instance id) or another replica carries the
 * same remote task on — GetTask, then SubscribeToTask or polling — instead of sending it again or letting the
 * deadline fail it. MCP calls made before the stop are not made again; a webhook's late callback still completes
 * its task. The scheduler's side is played over raw NATS with the public contract.
 */
describe('adapters: tasks in flight survive a restart', () => {
  let infrastructure: TestInfrastructure;
  let registry: INestMicroservice;
  const running = new Map<string, INestMicroservice>();
  let nats: NatsConnection;
  let reports: ReportTaskV1Request[] = [];
  const peers: Array<{ stop(): Promise<void> }> = [];

  async function startAdapters(instanceId: string, extra: Record<string, string> = {}): Promise<INestMicroservice> {
    infrastructure.applyEnvironment({ ADAPTERS_INSTANCE_ID: instanceId, ADAPTERS_CALLBACK_PORT: '0', ...extra });
    const service = await createService(AdaptersModule, { name: 'adapters', logger: false });
    running.set(instanceId, service);
    return service;
  }

  async function stopAdapters(instanceId: string): Promise<void> {
    await running.get(instanceId)?.close();
    running.delete(instanceId);
  }

  async function ok<T>(subject: string, body: unknown, timeoutMs = 15_000): Promise<T> {
    const reply = await rawRequest(nats, subject, body, timeoutMs);
    if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
    return reply.data as T;
  }

  function register(body: Record<string, unknown>): Promise<AdaptedAgentV1> {
    return ok<AdaptedAgentV1>(RegisterAdaptedAgentV1.subject, { owner: OWNER, ...body });
  }

  async function assign(agentId: string, description: string): Promise<TaskAssignmentV1Request> {
    const assignment = newTaskAssignment(agentId, description);
    expect(await ok(subjectFor(AssignTaskV1, agentId), assignment)).toEqual({ accepted: true });
    return assignment;
  }

  const reportsOf = (taskId: string) => reports.filter((report) => report.taskId === taskId);
  const reported = (taskId: string, content: string) =>
    expectEventually(() => reportsOf(taskId).find((report) => report.content === content), {
      timeoutMs: 20_000,
      message: `task ${taskId} reports "${content}"`,
    });
  const finalReport = async (taskId: string) =>
    (await expectEventually(() => finalReportOf(reports, taskId), {
      timeoutMs: 20_000,
      message: `task ${taskId} ends`,
    }))!;

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      REGISTRY_HEARTBEAT_TTL_SECONDS: '5',
      ADAPTERS_HEARTBEAT_MS: '500',
      ADAPTERS_CALL_TIMEOUT_MS: '5000',
      ADAPTERS_TASK_LEASE_MS: '1500',
    });
    registry = await createService(RegistryModule, { name: 'registry', logger: false });
    nats = await connectRaw(infrastructure.natsUrl);
    reports = recordTaskReports(nats);
    await startAdapters('adapters-a');
  }, 180_000);

  afterAll(async () => {
    await nats?.close();
    for (const instanceId of [...running.keys()]) await stopAdapters(instanceId);
    await registry?.close();
    await Promise.allSettled(peers.map((peer) => peer.stop()));
    await infrastructure?.stop();
  });

  it('A2A, streamed: restarted with the same instance id, it resubscribes to the same remote task', async () => {
    const agent = await startA2aGatedAgent({ name: 'Streamed Gate' });
    peers.push(agent);
    const adapted = await register({ endpoint: { kind: 'a2a', url: agent.url } });
    const task = await assign(adapted.agent.id, 'Count the stars over Lyon');
    await reported(task.taskId, 'Waiting at the gate');

    await stopAdapters('adapters-a');
    await startAdapters('adapters-a');
    await reported(task.taskId, 'streamed-gate (a2a endpoint) is followed again after an adapters restart');
    // Following the remote task again (it still waits at the gate): opening the gate now ends it.
    await expectEventually(() => agent.methods.includes('SubscribeToTask'), { message: 'resubscribed' });
    agent.openGate();

    expect(await finalReport(task.taskId)).toMatchObject({
      state: 'completed',
      content: 'Done: # Count the stars over Lyon',
    });
    // The same remote task, followed again: sent once, read back with GetTask and SubscribeToTask.
    expect(agent.briefs).toHaveLength(1);
    expect(agent.methods.filter((method) => method === 'SendStreamingMessage')).toHaveLength(1);
    expect(agent.methods).toEqual(expect.arrayContaining(['GetTask', 'SubscribeToTask']));
  });

  it('A2A, not streamed: another replica takes the task over and polls the same remote task to its end', async () => {
    const agent = await startA2aGatedAgent({ name: 'Polled Gate', streaming: false });
    peers.push(agent);
    const adapted = await register({ endpoint: { kind: 'a2a', url: agent.url } });
    // Only adapters-a runs: it takes the task.
    const task = await assign(adapted.agent.id, 'Weigh the moon');
    await expectEventually(() => agent.briefs.length === 1, { message: 'the A2A task is sent' });
    await startAdapters('adapters-b');
    await stopAdapters('adapters-a');
    await reported(task.taskId, 'polled-gate (a2a endpoint) is followed again after an adapters restart');
    await expectEventually(() => agent.methods.includes('GetTask'), { message: 'polled' });
    agent.openGate();
    expect(await finalReport(task.taskId)).toMatchObject({ state: 'completed', content: 'Done: # Weigh the moon' });
    expect(agent.briefs).toHaveLength(1);
    expect(agent.methods.filter((method) => method === 'SendMessage')).toHaveLength(1);
    expect(agent.methods).toContain('GetTask');
  });

  it('A2A, not streamed: input-required goes to the group and the answer comes back on the same task', async () => {
    const agent = await startA2aGatedAgent({ name: 'Asking Gate', streaming: false });
    peers.push(agent);
    agent.openGate();
    const adapted = await register({ endpoint: { kind: 'a2a', url: agent.url } });
    const task = await assign(adapted.agent.id, 'Measure the temperature, which unit you like');
    const question = await expectEventually(() =>
      reportsOf(task.taskId).find((report) => report.state === 'input-required'),
    );
    expect(question?.content).toBe('Which unit?');
    const event: MessagePostedV1Event = {
      goalId: task.goalId,
      message: {
        id: randomUUID(),
        groupId: task.groupId,
        seq: 4,
        type: 'user',
        senderId: 'user',
        senderName: 'user',
        content: 'Kelvin',
        turn: 2,
        createdAt: new Date().toISOString(),
      },
    };
    nats.publish(MessagePostedV1.subject, JSON.stringify(event));
    expect(await finalReport(task.taskId)).toMatchObject({
      state: 'completed',
      content: 'Done in Kelvin: # Measure the temperature, which unit you like',
    });
    expect(agent.briefs).toHaveLength(1);
  });

  it('MCP: a task taken over from a replica that died does not repeat the tool calls it had made', async () => {
    const mcp: McpTestServer = await startMcpTestServer();
    peers.push(mcp);
    const adapted = await register({ endpoint: { kind: 'mcp', url: mcp.url } });
    const brief = 'First capital_of Atlantis, then add 1 and 2.';
    // A first run shows which calls the (deterministic) planner makes for this brief.
    const first = await assign(adapted.agent.id, brief);
    const expected = await finalReport(first.taskId);
    const [capitalCall, addCall] = mcp.calls.splice(0);
    expect([capitalCall?.name, addCall?.name]).toEqual(['capital_of', 'add']);
    const assignment = newTaskAssignment(adapted.agent.id, brief);
    // A replica that died after its first tool call left its row behind: owned by it, lease run out.
    const dataSource = running.get('adapters-b')!.get(DataSource);
    await dataSource.query(
      `INSERT INTO "adapters"."adapted_tasks" ("task_id", "agent_id", "assignment", "checkpoint", "owner_id",
         "lease_expires_at") VALUES ($1, $2, $3::jsonb, $4::jsonb, 'adapters-dead', now() - interval '1 second')`,
      [
        assignment.taskId,
        assignment.agentId,
        JSON.stringify(assignment),
        JSON.stringify({
          mcpCalls: [{ ...capitalCall, output: 'No capital known (recorded before the crash)', isError: true }],
        }),
      ],
    );
    const final = await finalReport(assignment.taskId);
    expect(final).toMatchObject({ state: 'completed' });
    expect(expected.content).toContain('add: 3');
    // The recorded answer stands in for the call made before the crash; only the call after it is made.
    expect(final.content).toBe('capital_of: No capital known (recorded before the crash)\nadd: 3');
    expect(mcp.calls).toEqual([addCall]);
  });

  it('a task taken over after its deadline is failed with that reason, and nobody takes it on again', async () => {
    const agent = await startA2aGatedAgent({ name: 'Late Gate' });
    peers.push(agent);
    const adapted = await register({ endpoint: { kind: 'a2a', url: agent.url } });
    const assignment = newTaskAssignment(adapted.agent.id, 'Too late for this', {
      deadline: new Date(Date.now() - 1000).toISOString(),
    });
    const dataSource = running.get('adapters-b')!.get(DataSource);
    await dataSource.query(
      `INSERT INTO "adapters"."adapted_tasks" ("task_id", "agent_id", "assignment", "owner_id", "lease_expires_at")
       VALUES ($1, $2, $3::jsonb, 'adapters-dead', now() - interval '1 second')`,
      [assignment.taskId, assignment.agentId, JSON.stringify(assignment)],
    );
    expect(await finalReport(assignment.taskId)).toMatchObject({
      state: 'failed',
      content: expect.stringContaining('the task deadline passed'),
    });
    const remaining = async () => {
      const rows: unknown[] = await dataSource.query(`SELECT 1 FROM "adapters"."adapted_tasks" WHERE "task_id" = $1`, [
        assignment.taskId,
      ]);
      return rows.length;
    };
    await expectEventually(async () => (await remaining()) === 0, { message: 'the row is released' });
    expect(agent.briefs).toEqual([]);
  });

  it('webhook: a 202 task is completed by its callback after the adapters service restarted', async () => {
    const webhook: WebhookTestAgent = await startWebhookTestAgent(SECRET, 'async');
    peers.push(webhook);
    const adapted = await register({
      name: 'late-translator',
      description: 'Translates, late.',
      skills: [{ id: 'translate', name: 'Translate', description: 'Translate a text.', tags: [], examples: [] }],
      endpoint: { kind: 'http', url: webhook.url, secret: SECRET },
    });
    const task = await assign(adapted.agent.id, 'hola');
    const delivery = (await expectEventually(() => webhook.deliveries.find((entry) => entry.taskId === task.taskId)))!;
    // Back on the same callback port (a deployment pins it), as a new process.
    const port = new URL(delivery.callbackUrl).port;
    await stopAdapters('adapters-b');
    await startAdapters('adapters-c', { ADAPTERS_CALLBACK_PORT: port });
    expect(await webhook.callBack(delivery, { result: 'HELLO' })).toBe(200);
    expect(await finalReport(task.taskId)).toMatchObject({ state: 'completed', content: 'HELLO' });
  });
});
