import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { issueTestAgentCreds } from '@ioa/testing';
import { provisionTrust } from '@ioa/trust';
import { agentIdentityFromCreds } from '../agent-identity.js';
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

  it('passes the SDK example agent acting on its own subjects with an identity from a creds file', async () => {
    // Real credentials (a user JWT named by the agent id, signed as the registry signs them); this broker does not
    // check them, the kit plays the platform on the agent's own `ioa.agent.<id>.…` subjects.
    const trustRoot = mkdtempSync(join(tmpdir(), 'ioa-conformance-trust-'));
    try {
      await provisionTrust(trustRoot);
      const agentId = randomUUID();
      const identity = agentIdentityFromCreds(await issueTestAgentCreds(trustRoot, agentId));
      expect(identity.agentId).toBe(agentId);
      const starting = startWeatherAgent({ servers: nats.url, name: 'weather-own', speaksForItself: true, identity });
      const results = await runConformance({ connection: kit, agent: 'weather-own', ttlSeconds: 3 });
      const agent = await starting;
      await agent.stop();
      // It registered on its own subject (the kit gave the card the subject's id) and passed every rule there.
      expect(agent.id).toBe(agentId);
      expect(results.filter((result) => result.status !== 'pass')).toEqual([]);
    } finally {
      rmSync(trustRoot, { recursive: true, force: true });
    }
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
