import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Subscription } from '@nats-io/transport-node';
import {
  AgentWentOfflineV1,
  GetGoalV1,
  SearchAgentsV1,
  SubmitGoalV1,
  type AgentPresenceChangedV1Event,
  type GoalV1,
  type SearchAgentsV1Response,
  type TaskV1,
} from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import { buildGoAgent, startGoAgent, type RunningGoAgent } from '../../examples/go-agent/go-agent.testing.js';
import { startAgentPlatform, type AgentPlatform } from '../support/agent-platform.js';
import { canConnectFrom, createNetworkNamespace, type NetworkNamespace } from './network-namespace.js';

// Short, so the cut is noticed quickly; not shorter, since the services share this process on a busy CI machine.
const TTL_SECONDS = 5;
const AGENT_NAME = 'unit-converter';
/** Long enough that the link can be cut while the second task is still being worked on. */
const WORK_MS = 6000;

/**
 * An agent on another host: the Go example agent runs in its own network namespace and reaches the broker only
 * through a veth link, to the address the broker listens on. It joins, discovery finds it, team formation picks it,
 * it completes its task in a goal; then the link is cut in the middle of a task, and the platform notices: presence
 * goes offline within the TTL, the task fails, the goal still ends.
 */
describe('an agent on another host, across a network link', () => {
  let namespace: NetworkNamespace | undefined;
  let platform: AgentPlatform;
  let agent: RunningGoAgent | undefined;
  let brokerPort: number;
  const subscriptions: Subscription[] = [];
  const call = <T>(subject: string, body: unknown) => platform.call<T>(subject, body);
  const taskOf = (found: GoalV1): TaskV1 | undefined => found.tasks.find((task) => task.assigneeName === AGENT_NAME);

  beforeAll(async () => {
    // First, so that a machine that cannot create one fails here, with the reason, before anything else starts.
    namespace = await createNetworkNamespace();
    platform = await startAgentPlatform({
      nats: { host: namespace.hostAddress },
      environment: {
        REGISTRY_HEARTBEAT_TTL_SECONDS: String(TTL_SECONDS),
        REGISTRY_PRESENCE_SWEEP_MS: '250',
        AGENT_HOST_HEARTBEAT_MS: '1000',
        SCHEDULER_TURN_TIMEOUT_SECONDS: '10',
      },
    });
    brokerPort = Number(new URL(platform.infrastructure.natsUrl).port);
  }, 180_000);

  afterAll(async () => {
    subscriptions.forEach((subscription) => subscription.unsubscribe());
    await agent?.stop(2000);
    await platform?.stop();
    await namespace?.remove();
  }, 60_000);

  it('joins through the link only, is picked by discovery and completes its task in a goal', async () => {
    const link = namespace!;
    // Inside the namespace, this machine's loopback is not there: the link is the only way to the broker.
    expect(await canConnectFrom(link, '127.0.0.1', brokerPort)).toBe(false);
    expect(await canConnectFrom(link, link.hostAddress, brokerPort)).toBe(true);

    const binary = await buildGoAgent();
    const startedAt = Date.now();
    agent = startGoAgent(
      binary,
      { NATS_URL: `nats://${link.hostAddress}:${brokerPort}`, AGENT_NAME, WORK_MS: String(WORK_MS) },
      link.exec,
    );
    await expectEventually(
      async () => {
        const { matches } = await call<SearchAgentsV1Response>(SearchAgentsV1.subject, {
          queries: ['convert kilometres to miles'],
          topK: 3,
        });
        return matches[0]?.agent.name === AGENT_NAME;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `discovery ranks ${AGENT_NAME} first` },
    );
    const discoverableMs = Date.now() - startedAt;

    // No members named: the team forms from what discovery finds.
    const submitted = await call<GoalV1>(SubmitGoalV1.subject, { goal: 'Convert 42 kilometres to miles.' });
    const submittedAt = Date.now();
    await expectEventually(
      async () => taskOf(await call<GoalV1>(GetGoalV1.subject, { goalId: submitted.id }))?.state === 'working',
      {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: `${AGENT_NAME} works on its task`,
      },
    );
    const firstTaskMs = Date.now() - submittedAt;
    const ended = await platform.finishedGoal(submitted.id);
    expect(ended.team.map((member) => member.name)).toEqual([AGENT_NAME]);
    expect(taskOf(ended)).toMatchObject({ state: 'completed', result: '42 km = 26.1 miles' });
    expect(ended).toMatchObject({ status: 'completed' });
    expect(ended.conclusion).toContain('26.1 miles');
    process.stdout.write(
      `cross-host: ${AGENT_NAME} discoverable ${discoverableMs} ms after its process started; ` +
        `working on its first task ${firstTaskMs} ms after the goal was submitted\n`,
    );
  }, 240_000);

  it('notices a cut link mid-task: offline within the TTL, the task fails, the goal still ends', async () => {
    const wentOffline: Array<{ event: AgentPresenceChangedV1Event; at: number }> = [];
    subscriptions.push(
      platform.client.subscribe(AgentWentOfflineV1.subject, {
        callback: (_error, message) => {
          wentOffline.push({ event: message.json<AgentPresenceChangedV1Event>(), at: Date.now() });
        },
      }),
    );
    await platform.client.flush();
    const submitted = await call<GoalV1>(SubmitGoalV1.subject, { goal: 'Convert 100 kilometres to miles.' });
    const working = await expectEventually(
      async () => {
        const task = taskOf(await call<GoalV1>(GetGoalV1.subject, { goalId: submitted.id }));
        return task?.state === 'working' ? task : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `${AGENT_NAME} works on the second task` },
    ).then((found) => found!);

    const cutAt = Date.now();
    await namespace!.cut();
    const offline = await expectEventually(
      () => wentOffline.find((entry) => entry.event.name === AGENT_NAME && entry.event.agentId === working.assigneeId),
      { timeoutMs: (TTL_SECONDS + 10) * 1000, intervalMs: 50, message: 'the registry marks the agent offline' },
    ).then((found) => found!);
    const offlineAfterMs = offline.at - cutAt;
    // Measured from the last heartbeat the registry heard (same machine, same clock): never before the TTL, so the
    // agent was not given up while it could still be heard; and within the TTL plus the sweep (every 250 ms) and
    // the outbox relay. The margin is for a loaded 2-core CI runner, where the relay once took 3.7 s more.
    const silentMs = offline.at - Date.parse(offline.event.lastSeenAt);
    expect(Date.parse(offline.event.lastSeenAt)).toBeLessThanOrEqual(cutAt);
    expect(silentMs).toBeGreaterThanOrEqual(TTL_SECONDS * 1000);
    expect(silentMs).toBeLessThan(TTL_SECONDS * 1000 + 5000);

    const ended = await platform.finishedGoal(submitted.id);
    expect(ended.tasks.find((task) => task.id === working.id)?.state).toBe('failed');
    expect(['completed', 'failed']).toContain(ended.status);
    process.stdout.write(
      `cross-host: link cut mid-task; offline after ${offlineAfterMs} ms (${silentMs} ms after its last heartbeat; TTL ${TTL_SECONDS} s), goal ${ended.status}\n`,
    );
  }, 240_000);
});
