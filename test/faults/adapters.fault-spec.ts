import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AdaptedAgentV1, AgentCardV1, GoalV1 } from '@ioa/contracts';
import { adminAuthHeaders, expectEventually } from '@ioa/testing';
import { startA2aGatedAgent, type A2aGatedAgent } from '../../apps/adapters/src/testing/a2a-gated-agent.js';
import { FAULT_SERVICES, startFaultStack, tailOf, type FaultStack } from './fault-stack.js';

const GOAL_TIMEOUT_MS = 90_000;
const SCENARIO_TIMEOUT_MS = 240_000;
const OWNER = 'team-faults@example.org';

/**
 * The adapters service in the fault suite (`npm run test:faults`): real processes under the launcher, native
 * PostgreSQL, and real A2A agents (`@a2a-js/sdk`) in this process, registered over REST.
 * - `kill -9` of the adapters service while an A2A agent works on a goal's task: the launcher restarts it, the
 *   restarted process (same instance id) takes its task back and follows the same remote task, and the goal
 *   completes with the agent's result; the agent received the task once.
 * - The remote agent dies mid-task: the task fails with the reason (the agent cannot be reached), the agent goes
 *   offline, and team formation refuses it from then on.
 */
describe('adapters: crashes and dead endpoints on real processes', () => {
  let faults: FaultStack;
  const agents: A2aGatedAgent[] = [];
  const timings: string[] = [];
  let goalNumber = 0;

  async function http<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${faults.gatewayUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  async function registerAgent(name: string): Promise<{ agent: A2aGatedAgent; card: AgentCardV1 }> {
    const agent = await startA2aGatedAgent({ name });
    agents.push(agent);
    const { status, body } = await http<AdaptedAgentV1>('POST', '/v1/agents', {
      owner: OWNER,
      endpoint: { kind: 'a2a', url: agent.url },
    });
    if (status !== 201) throw new Error(`POST /v1/agents answered ${status}: ${JSON.stringify(body)}`);
    return { agent, card: body.agent };
  }

  async function submitGoal(members: string[]): Promise<{ status: number; body: GoalV1 }> {
    goalNumber += 1;
    return http<GoalV1>('POST', '/v1/goals', { goal: `Do the gated work, run ${goalNumber}.`, members });
  }

  async function waitForEnd(goalId: string): Promise<GoalV1> {
    return (await expectEventually(
      async () => {
        const { body } = await http<GoalV1>('GET', `/v1/goals/${goalId}`);
        return ['completed', 'failed', 'canceled'].includes(body.status) ? body : undefined;
      },
      { timeoutMs: GOAL_TIMEOUT_MS, intervalMs: 200, message: `goal ${goalId} ends` },
    ))!;
  }

  function adaptersProcess() {
    const found = faults.stack.processes().find((entry) => entry.service === 'adapters');
    if (!found?.pid) throw new Error('adapters is not running');
    return found;
  }

  beforeAll(async () => {
    faults = await startFaultStack({
      services: [...FAULT_SERVICES.filter((name) => name !== 'gateway'), 'adapters', 'gateway'],
    });
    process.stdout.write(`adapters fault suite: services log to ${faults.logFile}\n`);
  }, 300_000);

  afterAll(async () => {
    process.stdout.write(['', 'Adapters recovery times:', ...timings, ''].join('\n'));
    await Promise.allSettled(agents.map((agent) => agent.stop()));
    await faults?.stop();
  }, 120_000);

  it(
    'kill -9 of the adapters service while an A2A task runs: restarted, it follows the same remote task and the goal completes',
    async () => {
      const { agent, card } = await registerAgent('Gated Fault Worker');
      const submitted = await submitGoal([card.name]);
      expect(submitted.status).toBe(202);
      const goalId = submitted.body.id;
      // The agent took the task and said so: the adapters service has saved the remote task's ids by then (a crash
      // before the agent names its task can only send the task again).
      await expectEventually(
        async () => {
          const { body } = await http<GoalV1>('GET', `/v1/goals/${goalId}`);
          return body.tasks.some((task) => task.statusMessage === 'Waiting at the gate');
        },
        { timeoutMs: GOAL_TIMEOUT_MS, intervalMs: 100, message: 'the A2A agent works on the task' },
      );
      const victim = adaptersProcess();
      const killedAt = Date.now();
      process.kill(victim.pid!, 'SIGKILL');
      const backAt = (await expectEventually(
        () => {
          const now = faults.stack.processes().find((entry) => entry.service === 'adapters');
          const started = faults.startedAt.get('adapters') ?? 0;
          return now?.pid && now.pid !== victim.pid && started > killedAt ? started : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 50, message: 'adapters is restarted' },
      ))!;
      // Resubscribed to the same remote task: opening the gate now ends it.
      await expectEventually(() => agent.methods.includes('SubscribeToTask'), {
        timeoutMs: 30_000,
        message: 'the restarted adapters service follows the remote task again',
      });
      agent.openGate();
      const goal = await waitForEnd(goalId);
      if (goal.status !== 'completed') {
        throw new Error(`goal ended ${goal.status}: ${goal.statusReason}\n${tailOf(faults.logFile)}`);
      }
      const task = goal.tasks.find((entry) => entry.assigneeName === card.name);
      expect(task).toMatchObject({ state: 'completed', result: expect.stringContaining('Done: # ') });
      expect(agent.briefs).toHaveLength(1);
      expect(agent.methods.filter((method) => method === 'SendStreamingMessage')).toHaveLength(1);
      timings.push(
        `  kill -9 adapters mid A2A task: back up ${((backAt - killedAt) / 1000).toFixed(1)} s, ` +
          `goal completed ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill (gate opened on resubscribe)`,
      );
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'the remote agent dies mid-task: the task fails with the reason, the agent goes offline, team formation refuses it',
    async () => {
      const { agent, card } = await registerAgent('Fragile Fault Worker');
      const submitted = await submitGoal([card.name]);
      expect(submitted.status).toBe(202);
      const goalId = submitted.body.id;
      await expectEventually(() => agent.briefs.length === 1, {
        timeoutMs: GOAL_TIMEOUT_MS,
        message: 'the A2A agent receives the task',
      });
      const diedAt = Date.now();
      await agent.stop();

      const failed = await expectEventually(
        async () => {
          const { body } = await http<GoalV1>('GET', `/v1/goals/${goalId}`);
          return body.tasks.find((entry) => entry.assigneeName === card.name && entry.state === 'failed');
        },
        { timeoutMs: GOAL_TIMEOUT_MS, intervalMs: 200, message: "the dead agent's task fails" },
      );
      const failedAt = Date.now();
      expect(JSON.stringify(failed)).toMatch(/GetTask .* failed after \d+ attempts: .*ECONNREFUSED/);
      await waitForEnd(goalId);

      await expectEventually(
        async () => (await http<AgentCardV1>('GET', `/v1/agents/${card.id}`)).body.status === 'offline',
        { timeoutMs: 60_000, intervalMs: 500, message: 'the dead agent goes offline' },
      );
      const offlineAt = Date.now();
      const refused = await submitGoal([card.name]);
      const refusal =
        refused.status === 202 ? (await waitForEnd(refused.body.id)).statusReason : JSON.stringify(refused.body);
      expect(refusal).toContain(`Agent "${card.name}" is offline`);
      timings.push(
        `  A2A agent died mid-task: task failed ${((failedAt - diedAt) / 1000).toFixed(1)} s, offline ` +
          `${((offlineAt - diedAt) / 1000).toFixed(1)} s after it died`,
      );
    },
    SCENARIO_TIMEOUT_MS,
  );
});
