import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { startWeatherAgent } from '../../../../examples/weather-agent/weather-agent.js';
import { startDocsOnlyAgent } from './testing/docs-only-agent.testing.js';
import { CONFORMANCE_RULES, runConformance, type RuleResult } from './run-conformance.js';

const verdicts = (results: RuleResult[]) => Object.fromEntries(results.map((result) => [result.id, result.status]));

/**
 * The conformance kit against real agents on a real nats-server (and no platform: the kit plays it): the SDK's
 * example passes every rule, in both voices; an agent written from the raw docs alone passes what the docs teach it;
 * a broken agent fails, rule by rule, with evidence.
 */
describe('the conformance kit', () => {
  let nats: EmbeddedNats;
  let kit: NatsConnection;

  beforeAll(async () => {
    nats = await startNatsServer();
    kit = await connect({ servers: nats.url, name: 'conformance-kit' });
  });

  afterAll(async () => {
    await kit?.close();
    await nats?.stop();
  });

  it('passes the SDK example agent that speaks for itself on every rule', async () => {
    // The agent starts first and keeps retrying its registration until someone (the kit) answers.
    const starting = startWeatherAgent({ servers: nats.url, name: 'weather-self', speaksForItself: true });
    const results = await runConformance({ connection: kit, agent: 'weather-self', ttlSeconds: 3 });
    const agent = await starting;
    await agent.stop();
    expect(results.map((result) => result.id)).toEqual(CONFORMANCE_RULES.map((rule) => rule.id));
    expect(results.filter((result) => result.status !== 'pass')).toEqual([]);
  });

  it('skips the turn rules for an agent the platform speaks for, and passes the rest', async () => {
    const starting = startWeatherAgent({ servers: nats.url, name: 'weather-quiet' });
    const results = await runConformance({ connection: kit, agent: 'weather-quiet', ttlSeconds: 3 });
    await (await starting).stop();
    expect(results.filter((result) => result.status === 'fail')).toEqual([]);
    expect(verdicts(results)).toMatchObject({ 'turn.answers-own-turn': 'skip', 'turn.ignores-other-turns': 'skip' });
  });

  it('judges the agent of the architecture guide, written with a bare NATS client, rule by rule', async () => {
    const starting = startDocsOnlyAgent(nats.url, 'docs-weather');
    const results = await runConformance({ connection: kit, agent: 'docs-weather', ttlSeconds: 3, taskSeconds: 5 });
    await (await starting).stop();
    // The guide's sample sends no progress, ignores NOT_FOUND on heartbeats, and its task loop throws on a body that
    // is not JSON (the process would exit): every rule after that one fails with it.
    expect(verdicts(results)).toEqual({
      'registration.card-valid': 'pass',
      'heartbeat.within-ttl': 'pass',
      'heartbeat.reregisters-when-forgotten': 'fail',
      'task.acknowledged': 'pass',
      'task.progress': 'fail',
      'task.result': 'pass',
      'task.malformed-json': 'fail',
      'task.invalid-assignment': 'fail',
      'task.cancel': 'fail',
      'presence.survives-registry-outage': 'fail',
      'turn.answers-own-turn': 'skip',
      'turn.ignores-other-turns': 'skip',
    });
  }, 120_000);

  it('fails every rule with evidence when the agent never registers', async () => {
    const results = await runConformance({ connection: kit, agent: 'nobody-home', ttlSeconds: 3, waitSeconds: 1 });
    expect(results.every((result) => result.status === 'fail')).toBe(true);
    expect(results[0].evidence).toContain('no registration named "nobody-home" within 1 s');
  });
});
