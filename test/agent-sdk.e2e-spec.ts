import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  DeregisterAgentV1,
  ENDED_GOAL_STATUSES,
  GetAgentV1,
  GetGoalV1,
  SearchAgentsV1,
  SubmitGoalV1,
  type AgentCardV1,
  type GoalV1,
  type SearchAgentsV1Response,
} from '@ioa/contracts';
import { IoaAgent } from '@ioa/agent-sdk';
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
import { DiscoveryModule } from '../apps/discovery/src/discovery.module.js';
import { RegistryModule } from '../apps/registry/src/registry.module.js';
import { SchedulerModule } from '../apps/scheduler/src/scheduler.module.js';
import { forecastFor, startWeatherAgent, WEATHER_CARD } from '../examples/weather-agent/weather-agent.js';

// Not shorter: every service runs in this one process, and a busy CI machine can stall it for seconds.
const TTL_SECONDS = 10;

/**
 * @ioa/agent-sdk against the real platform (registry, discovery, chat, scheduler, agent-host with the offline model)
 * on a real nats-server and database: an SDK agent is found, picked and completes a goal; it registers again when
 * the registry forgets it; it speaks for itself in a group; it stops gracefully, reporting what it could not finish.
 */
describe('agents built with @ioa/agent-sdk, on the real platform', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let client: NatsConnection;
  const agents: IoaAgent[] = [];

  async function call<T>(subject: string, body: unknown): Promise<T> {
    const reply = await rawRequest(client, subject, body);
    if (!reply.ok) throw new Error(`${subject}: ${reply.error?.code}: ${reply.error?.message}`);
    return reply.data as T;
  }

  async function finishedGoal(goalId: string): Promise<GoalV1> {
    const ended = await expectEventually(
      async () => {
        const goal = await call<GoalV1>(GetGoalV1.subject, { goalId });
        return ENDED_GOAL_STATUSES.includes(goal.status) ? goal : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, message: 'the goal ends' },
    );
    return ended!;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      REGISTRY_HEARTBEAT_TTL_SECONDS: String(TTL_SECONDS),
      REGISTRY_PRESENCE_SWEEP_MS: '250',
      AGENT_HOST_HEARTBEAT_MS: '1000',
    });
    for (const [module, name] of [
      [RegistryModule, 'registry'],
      [DiscoveryModule, 'discovery'],
      [ChatModule, 'chat'],
      [SchedulerModule, 'scheduler'],
      [AgentHostModule, 'agent-host'],
    ] as const) {
      services.push(await createService(module, { name, logger: false }));
    }
    client = await connectRaw(infrastructure.natsUrl);
  }, 180_000);

  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await client?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it('is discovered, picked by team formation and completes its task in a goal', async () => {
    const agent = await startWeatherAgent({ servers: infrastructure.natsUrl });
    agents.push(agent);
    expect(agent.heartbeatTtlSeconds).toBe(TTL_SECONDS);
    await expectEventually(
      async () => {
        const found = await call<SearchAgentsV1Response>(SearchAgentsV1.subject, {
          queries: ['will it rain in Lyon tomorrow?'],
          topK: 3,
        });
        return found.matches[0]?.agent.id === agent.id;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'discovery ranks the weather agent first' },
    );

    const submitted = await call<GoalV1>(SubmitGoalV1.subject, { goal: 'Forecast the weather in Lyon for tomorrow.' });
    const goal = await finishedGoal(submitted.id);
    expect(goal.status).toBe('completed');
    expect(goal.team.map((member) => member.name)).toEqual([WEATHER_CARD.name]);
    const task = goal.tasks.find((candidate) => candidate.assigneeId === agent.id);
    expect(task).toMatchObject({ state: 'completed', result: forecastFor('in Lyon') });
    expect(goal.conclusion).toContain('Forecast for Lyon');
  });

  it('registers again when the registry has forgotten it, and serves tasks at its new id', async () => {
    const agent = agents[0];
    const before = agent.id;
    await call(DeregisterAgentV1.subject, { id: before, owner: WEATHER_CARD.owner });
    // The next heartbeat is answered NOT_FOUND; the SDK registers the card again, which gets a new id.
    const card = await expectEventually(
      async () => {
        const found = await call<AgentCardV1>(GetAgentV1.subject, { name: WEATHER_CARD.name });
        // Both sides agree: the registry holds the new card, and the agent has taken its id from the reply.
        return found.id !== before && found.status === 'online' && agent.id === found.id ? found : undefined;
      },
      { timeoutMs: TTL_SECONDS * 2000, intervalMs: 100, message: 'the agent is registered again' },
    );
    expect(card!.name).toBe(WEATHER_CARD.name);

    const submitted = await call<GoalV1>(SubmitGoalV1.subject, {
      goal: 'Forecast the weather in Oslo for Friday.',
      members: [WEATHER_CARD.name],
    });
    const goal = await finishedGoal(submitted.id);
    expect(goal.tasks.find((task) => task.assigneeId === agent.id)).toMatchObject({ state: 'completed' });
  });

  it('speaks for itself in the group when it has a turn handler', async () => {
    const agent = await startWeatherAgent({
      servers: infrastructure.natsUrl,
      name: 'weather-voice',
      speaksForItself: true,
    });
    agents.push(agent);
    expect(agent.agentCard.metadata).toMatchObject({ communicator: 'self' });
    const submitted = await call<GoalV1>(SubmitGoalV1.subject, {
      goal: 'Tell the team the weather in Paris.',
      members: ['weather-voice'],
    });
    const goal = await finishedGoal(submitted.id);
    expect(goal).toMatchObject({ status: 'completed', conclusion: forecastFor('in Paris') });
  });

  it('stops gracefully: declines new work and reports the task it could not finish as failed', async () => {
    let started!: () => void;
    const taskStarted = new Promise<void>((resolve) => (started = resolve));
    const agent = await IoaAgent.start({
      servers: infrastructure.natsUrl,
      card: { ...WEATHER_CARD, name: 'slow-forecaster', description: 'Slow weather forecasts for Bergen harbours.' },
      shutdownGraceMs: 500,
      onTask: async (_task, context) => {
        await context.progress('Reading the barometer');
        started();
        // Works until told to stop (the shutdown aborts the signal after its grace period).
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
        return 'never delivered';
      },
    });
    const submitted = await call<GoalV1>(SubmitGoalV1.subject, {
      goal: 'Forecast the weather in Bergen for Monday.',
      members: ['slow-forecaster'],
    });
    await taskStarted;
    await agent.stop();
    const goal = await finishedGoal(submitted.id);
    expect(goal.tasks.find((task) => task.assigneeId === agent.id)).toMatchObject({
      state: 'failed',
      statusMessage: 'The agent shut down before finishing the task.',
    });
  });
});
