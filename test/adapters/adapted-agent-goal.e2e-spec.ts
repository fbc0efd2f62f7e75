import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { GoalV1 } from '@ioa/contracts';
import { adminAuthHeaders, expectEventually, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { startA2aWeatherAgent, type A2aWeatherAgent } from '../../deploy/local/a2a-weather-agent.js';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app.js';
import { GOAL_SERVICES, startServices } from '../support/platform-services.js';

/**
 * The whole platform with a third-party A2A agent: a person registers it over REST by its URL alone, discovery
 * finds it for a goal nobody else can do, team formation picks it beside the built-in writer, its task runs over
 * A2A — including a question back to the person, answered through the goal's messages and passed on to the same
 * A2A task — and its forecast ends up in the conclusion. Offline model, real services, real broker and database.
 */
describe('an A2A agent in a goal, across the platform', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let weather: A2aWeatherAgent;

  async function http<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? adminAuthHeaders() : { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    weather = await startA2aWeatherAgent();
    infrastructure.applyEnvironment({
      REGISTRY_HEARTBEAT_TTL_SECONDS: '3',
      AGENT_HOST_HEARTBEAT_MS: '500',
      ADAPTERS_HEARTBEAT_MS: '500',
      ADAPTERS_CALLBACK_PORT: '0',
    });
    services.push(...(await startServices([...GOAL_SERVICES, [AdaptersModule, 'adapters']])));
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
  }, 240_000);

  afterAll(async () => {
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await weather?.stop();
    await infrastructure?.stop();
  });

  it('registers by URL over REST, is chosen by discovery, asks the person a question and finishes the task', async () => {
    const registered = await http<{ agent: { id: string; name: string; status: string } }>('POST', '/v1/agents', {
      owner: 'team-weather@example.org',
      endpoint: { kind: 'a2a', url: weather.url },
    });
    expect(registered.status).toBe(201);
    expect(registered.body.agent).toMatchObject({ name: 'weather-oracle', status: 'online' });
    const refused = await http<{ error: string; message: string }>('POST', '/v1/agents', {
      owner: 'x',
      endpoint: { kind: 'http', url: 'not a url' },
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED' } });

    // Discovery has indexed it once a search for what it does finds it.
    await expectEventually(
      async () => {
        const found = await http<{ items: Array<{ name: string }> }>('GET', '/v1/agents?q=weather%20forecast%20rain');
        return found.body.items.some((item) => item.name === 'weather-oracle');
      },
      { timeoutMs: 30_000, message: 'discovery indexes the A2A agent' },
    );

    // No city in the goal: the A2A agent will have to ask for it.
    const submitted = await http<GoalV1>('POST', '/v1/goals', {
      goal: 'Give the weather forecast with the rain probability for tomorrow, and write a short report.',
    });
    expect(submitted.status).toBe(202);
    const goalId = submitted.body.id;
    const goal = async () => (await http<GoalV1>('GET', `/v1/goals/${goalId}`)).body;

    const asking = await expectEventually(
      async () => {
        const current = await goal();
        if (current.status === 'failed') throw new Error(`goal failed: ${current.statusReason}`);
        return current.tasks.find((task) => task.assigneeName === 'weather-oracle' && task.state === 'input-required');
      },
      { timeoutMs: 90_000, intervalMs: 250, message: "the weather agent's task asks for input" },
    );
    expect(asking?.statusMessage).toBe('For which city?');

    const answered = await http<GoalV1>('POST', `/v1/goals/${goalId}/messages`, { content: 'Lyon' });
    expect(answered.status).toBe(202);

    const done = await expectEventually(
      async () => {
        const current = await goal();
        if (current.status === 'failed') throw new Error(`goal failed: ${current.statusReason}`);
        return current.status === 'completed' ? current : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, message: 'the goal completes' },
    );
    const weatherTask = done!.tasks.find((task) => task.assigneeName === 'weather-oracle');
    expect(weatherTask).toMatchObject({ state: 'completed', result: expect.stringContaining('Forecast for Lyon') });
    expect(done!.conclusion).toContain('Forecast for Lyon');
    // One A2A task from start to finish: the answer went to the task that asked.
    expect(weather.briefs).toHaveLength(1);
  });

  it('is changed and removed over REST by its owner only', async () => {
    const listed = await http<{ items: Array<{ id: string; name: string }> }>('GET', '/v1/agents');
    const id = listed.body.items.find((item) => item.name === 'weather-oracle')!.id;
    const stranger = await http('PATCH', `/v1/agents/${id}`, { owner: 'someone-else', description: 'Mine now.' });
    expect(stranger).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
    const changed = await http<{ agent: { description: string; revision: number } }>('PATCH', `/v1/agents/${id}`, {
      owner: 'team-weather@example.org',
      description: 'Forecasts for any city, rain included.',
    });
    expect(changed).toMatchObject({
      status: 200,
      body: { agent: { description: 'Forecasts for any city, rain included.' } },
    });
    const removed = await http('DELETE', `/v1/agents/${id}`, { owner: 'team-weather@example.org' });
    expect(removed).toMatchObject({ status: 200, body: { id, deregistered: true } });
    expect((await http('GET', `/v1/agents/${id}`)).status).toBe(404);
  });
});
