import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { AssignTaskV1, GetAgentV1, ReportOwnTaskV1, subjectFor, type AgentCardV1 } from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import { expectEventually, issueTestAgentCreds, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { buildGoAgent, startGoAgent, type RunningGoAgent } from '../../examples/go-agent/go-agent.testing.js';

const decoder = new TextDecoder();

/**
 * The Go agent on a broker with authentication, as an external agent joins a real network: its own identity in a
 * creds file (nats.go `UserCredentials`), its own inbox prefix, its own subjects. The real registry takes its card;
 * the test plays the scheduler (on the scheduler's NATS user) to hand it a task and take its report.
 */
describe('the Go example agent with a creds file', () => {
  let infrastructure: TestInfrastructure;
  let registry: INestMicroservice;
  let scheduler: NatsConnection;
  let agent: RunningGoAgent | undefined;
  let directory: string;
  const agentId = randomUUID();

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure({ auth: true });
    infrastructure.applyEnvironment();
    registry = await createService(RegistryModule, { name: 'registry', logger: ['error'] });
    scheduler = await infrastructure.connectAsService('scheduler');
    directory = mkdtempSync(join(tmpdir(), 'ioa-go-creds-'));
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    await registry?.close();
    await infrastructure?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('registers under its identity, takes a task and reports it on its own subjects', async () => {
    const binary = await buildGoAgent();
    const creds = join(directory, 'go-agent.creds');
    writeFileSync(creds, await issueTestAgentCreds(infrastructure.trust!.root, agentId), { mode: 0o600 });
    const reports: Array<Record<string, unknown>> = [];
    scheduler.subscribe(subjectFor(ReportOwnTaskV1, agentId), {
      callback: (_error, message) => {
        reports.push(JSON.parse(decoder.decode(message.data)) as Record<string, unknown>);
        message.respond(JSON.stringify({ ok: true, data: {} }));
      },
    });
    await scheduler.flush();

    agent = startGoAgent(binary, {
      NATS_URL: infrastructure.natsUrl,
      AGENT_NAME: 'go-converter',
      AGENT_CREDS: creds,
      WORK_MS: '200',
    });
    const card = await expectEventually(
      async () => {
        const reply = await scheduler.request(GetAgentV1.subject, JSON.stringify({ id: agentId }), { timeout: 2_000 });
        const envelope = JSON.parse(decoder.decode(reply.data)) as { ok: boolean; data?: AgentCardV1 };
        return envelope.ok ? envelope.data : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'the Go agent registers under its identity' },
    );
    expect(card).toMatchObject({ id: agentId, name: 'go-converter', status: 'online' });

    const taskId = randomUUID();
    // The card is in the registry a moment before the agent's task subscription is live (it subscribes on the
    // registration's reply): the scheduler's dispatcher retries "no responders" the same way.
    const ack = await expectEventually(
      () =>
        scheduler.request(
          subjectFor(AssignTaskV1, agentId),
          JSON.stringify({
            taskId,
            goalId: randomUUID(),
            groupId: randomUUID(),
            agentId,
            brief: {
              abstract: 'Convert 42 kilometres to miles',
              inputs: '',
              description: 'Convert 42 kilometres to miles',
              completionCriteria: 'The distance in miles',
            },
            deadline: new Date(Date.now() + 60_000).toISOString(),
            depth: 0,
            maxDepth: 2,
            attempt: 1,
          }),
          { timeout: 5_000 },
        ),
      { timeoutMs: 10_000, intervalMs: 100, message: 'the Go agent takes the task' },
    );
    expect(JSON.parse(decoder.decode(ack.data))).toMatchObject({ ok: true, data: { accepted: true } });
    await expectEventually(() => reports.some((report) => report.state === 'completed'), {
      timeoutMs: 20_000,
      message: 'the Go agent reports the task completed on its own subject',
    });
    expect(reports.find((report) => report.state === 'completed')).toMatchObject({ taskId, agentId });
    expect(String(reports.find((report) => report.state === 'completed')?.content)).toContain('26.1');
    // It never tried a subject that is not its own: the broker refused it nothing.
    expect(infrastructure.permissionViolations()).toEqual([]);
    expect(await agent.stop()).toBe(0);
  }, 120_000);
});
