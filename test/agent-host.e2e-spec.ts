import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  GetGoalV1,
  ListAgentsV1,
  SubmitGoalV1,
  type AgentCardV1,
  type GoalV1,
  type ListAgentsV1Response,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { AgentHostModule } from '../apps/agent-host/src/agent-host.module.js';
import { ChatModule } from '../apps/chat/src/chat.module.js';
import { RegistryModule } from '../apps/registry/src/registry.module.js';
import { SchedulerModule } from '../apps/scheduler/src/scheduler.module.js';

/**
 * agent-host against the real registry, chat and scheduler: the built-in agents register and stay online, and a
 * goal naming them runs end to end — the platform communicator speaks for them, their tasks run, the writer's
 * report becomes the conclusion. Everything offline (deterministic model), over a real broker and database.
 */
describe('agent-host with the real registry, chat and scheduler', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let external: NatsConnection;

  async function ok<T>(subject: string, body: unknown): Promise<T> {
    const reply = await rawRequest(external, subject, body);
    if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
    return reply.data as T;
  }

  // Booting real infrastructure and services is slow on a loaded machine (hence the hook timeout); tests are not.
  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ REGISTRY_HEARTBEAT_TTL_SECONDS: '2', AGENT_HOST_HEARTBEAT_MS: '300' });
    for (const [module, name] of [
      [RegistryModule, 'registry'],
      [ChatModule, 'chat'],
      [SchedulerModule, 'scheduler'],
      [AgentHostModule, 'agent-host'],
    ] as const) {
      services.push(await createService(module, { name, logger: false }));
    }
    external = await connectRaw(infrastructure.natsUrl);
  }, 180_000);

  afterAll(async () => {
    await external?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  });

  async function builtIns(): Promise<AgentCardV1[]> {
    const list = await ok<ListAgentsV1Response>(ListAgentsV1.subject, { owner: 'ioa-builtin' });
    return list.items;
  }

  it('registers the built-in agents in the registry, and their heartbeats keep them online past the TTL', async () => {
    const first = (await expectEventually(async () => {
      const cards = await builtIns();
      return cards.length === 3 && cards.every((card) => card.status === 'online') ? cards : undefined;
    })) as AgentCardV1[];
    expect(first.map((card) => card.name).sort()).toEqual(['code-runner', 'doc-researcher', 'writer']);
    expect(first.every((card) => card.endpoint.kind === 'nats')).toBe(true);
    const seen = new Map(first.map((card) => [card.id, Date.parse(card.lastSeenAt)]));
    const started = Date.now();
    // Wait past the 2 s TTL: still online, and each card was seen again since.
    await expectEventually(
      async () => {
        if (Date.now() - started < 2500) return false;
        const cards = await builtIns();
        return cards.every(
          (card) => card.status === 'online' && Date.parse(card.lastSeenAt) > (seen.get(card.id) ?? 0),
        );
      },
      { timeoutMs: 10_000, message: 'the built-in agents stay online' },
    );
  });

  it('runs a goal with the built-in agents end to end: moves, async tasks, a sync report, the conclusion', async () => {
    await expectEventually(async () => (await builtIns()).length === 3);
    const submitted = await ok<GoalV1>(SubmitGoalV1.subject, {
      goal: 'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.',
      members: ['code-runner', 'doc-researcher', 'writer'],
    });
    const goal = (await expectEventually(
      async () => {
        const current = await ok<GoalV1>(GetGoalV1.subject, { goalId: submitted.id });
        if (current.status === 'failed') throw new Error(`goal failed: ${current.statusReason}`);
        return current.status === 'completed' ? current : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'the goal completes' },
    )) as GoalV1;
    const byAssignee = (name: string) => goal.tasks.filter((task) => task.assigneeName === name);
    expect(byAssignee('code-runner')).toEqual([
      expect.objectContaining({ mode: 'async', state: 'completed', result: expect.stringMatching(/^42\n/) }),
    ]);
    expect(byAssignee('doc-researcher')).toEqual([
      expect.objectContaining({
        mode: 'async',
        state: 'completed',
        result: expect.stringContaining('source: presence.md'),
      }),
    ]);
    expect(byAssignee('writer')).toEqual([expect.objectContaining({ mode: 'sync', state: 'completed' })]);
    expect(goal.conclusion).toBe(byAssignee('writer')[0].result);
    expect(goal.conclusion).toMatch(/^# Report: Run `console\.log\(6 \* 7\)`/);
    expect(goal.conclusion).toContain('## code-runner: ');
    expect(goal.usage.modelCalls).toBeGreaterThan(0);
  });
});
