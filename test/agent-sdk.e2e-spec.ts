import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DeregisterAgentV1,
  GetAgentV1,
  SearchAgentsV1,
  SubmitGoalV1,
  type AgentCardV1,
  type GoalV1,
  type SearchAgentsV1Response,
} from '@ioa/contracts';
import { IoaAgent } from '@ioa/agent-sdk';
import { expectEventually } from '@ioa/testing';
import { forecastFor, startWeatherAgent, WEATHER_CARD } from '../examples/weather-agent/weather-agent.js';
import { startAgentPlatform, type AgentPlatform } from './support/agent-platform.js';

// Not shorter: every service runs in this one process, and a busy CI machine can stall it for seconds.
const TTL_SECONDS = 10;

/**
 * @ioa/agent-sdk against the real platform (registry, discovery, chat, scheduler, agent-host with the offline model)
 * on a real nats-server and database: an SDK agent is found, picked and completes a goal; it registers again when
 * the registry forgets it; it speaks for itself in a group; it stops gracefully, reporting what it could not finish.
 */
describe('agents built with @ioa/agent-sdk, on the real platform', () => {
  let platform: AgentPlatform;
  const agents: IoaAgent[] = [];
  const call = <T>(subject: string, body: unknown) => platform.call<T>(subject, body);
  const finishedGoal = (goalId: string) => platform.finishedGoal(goalId);

  beforeAll(async () => {
    platform = await startAgentPlatform({
      environment: {
        REGISTRY_HEARTBEAT_TTL_SECONDS: String(TTL_SECONDS),
        REGISTRY_PRESENCE_SWEEP_MS: '250',
        AGENT_HOST_HEARTBEAT_MS: '1000',
      },
    });
  }, 180_000);

  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await platform?.stop();
  }, 60_000);

  it('is discovered, picked by team formation and completes its task in a goal', async () => {
    const agent = await startWeatherAgent({ servers: platform.infrastructure.natsUrl });
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
      servers: platform.infrastructure.natsUrl,
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
      servers: platform.infrastructure.natsUrl,
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
