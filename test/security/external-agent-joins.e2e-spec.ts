import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import {
  AssignTaskV1,
  RegisterOwnAgentV1,
  ReportOwnTaskV1,
  subjectFor,
  type GoalV1,
  type TaskAssignmentV1Request,
} from '@ioa/contracts';
import { expectEventually, NatsPermissionProbe, startTestInfrastructure, TEST_ADMIN_API_KEY } from '@ioa/testing';
import type { TestInfrastructure } from '@ioa/testing';
import { IoaAgent, requestAgentIdentity, type AgentIdentity } from '@ioa/agent-sdk';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app.js';
import { GOAL_SERVICES, startServices } from '../support/platform-services.js';

const GOAL_DEADLINE_MS = 120_000;
const TIDES = 'High tide at Saint-Malo tomorrow at 06:12 (11.9 m), low tide at 12:31.';
const decoder = new TextDecoder();

/**
 * The "done when": an external agent that follows only the agent guide (the SDK, its own key pair, a JWT the
 * platform issued over REST for its account's API key) joins a network with authentication on, is chosen for a goal
 * and completes its task; a second agent, of another account, cannot impersonate it.
 */
describe('an external agent joins with its own credentials', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let oracle: IoaAgent;
  let oracleIdentity: AgentIdentity;
  let intruderIdentity: AgentIdentity;
  let intruder: NatsConnection;
  const assignments: TaskAssignmentV1Request[] = [];
  const keys: Record<string, string> = {};

  async function rest<T>(key: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  /** An account and a member API key of it, made by the admin (as an operator hands them out). */
  async function memberKeyOf(accountId: string): Promise<string> {
    const admin = TEST_ADMIN_API_KEY;
    expect((await rest(admin, 'POST', '/v1/accounts', { id: accountId, name: accountId })).status).toBe(201);
    const created = await rest<{ key: string }>(admin, 'POST', `/v1/accounts/${accountId}/api-keys`, {
      name: `${accountId} agents`,
    });
    expect(created.status).toBe(201);
    return created.body.key;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure({ auth: true });
    // The registry is the identity authority: it alone reads the trust directory (the agent signing key).
    infrastructure.applyEnvironment({
      AGENT_HOST_HEARTBEAT_MS: '1000',
      IOA_TRUST_DIR: infrastructure.trust!.root,
      GATEWAY_AGENT_NATS_URLS: infrastructure.natsUrl,
    });
    services.push(...(await startServices(GOAL_SERVICES, ['error'])));
    gateway = await createGatewayApp({ logger: ['error'] });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    keys.tides = await memberKeyOf('tides-inc');
    keys.mallory = await memberKeyOf('mallory-ltd');
  }, 180_000);

  afterAll(async () => {
    await oracle?.stop({ deregister: true });
    await intruder?.close();
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it(
    'is issued an identity for its own key, registers under it, and completes its task in a goal',
    async () => {
      // The guide's steps: a key pair of its own (the seed stays here), its public key sent with the account's key.
      oracleIdentity = await requestAgentIdentity({ gatewayUrl: baseUrl, apiKey: keys.tides });
      expect(oracleIdentity).toMatchObject({ accountId: 'tides-inc', agentId: expect.any(String) });
      oracle = await IoaAgent.start({
        servers: infrastructure.natsUrl,
        identity: oracleIdentity,
        card: {
          name: 'tide-oracle',
          description: 'Knows the tide tables of the harbours of Brittany.',
          owner: oracleIdentity.accountId!,
          endpoint: { kind: 'nats' },
          skills: [{ id: 'tides', name: 'Tide tables', description: 'Tells the high and low tide times of a harbour' }],
        },
        onTask: (task) => {
          assignments.push(task);
          return Promise.resolve(TIDES);
        },
      });
      expect(oracle.id).toBe(oracleIdentity.agentId);

      const submitted = await rest<{ id: string }>(keys.tides, 'POST', '/v1/goals', {
        goal: 'Find the tide times at Saint-Malo tomorrow from the tide tables, and write a short report.',
        members: ['tide-oracle'],
      });
      expect(submitted.status).toBe(202);
      const goal = await expectEventually(
        async () => {
          const { body } = await rest<GoalV1>(keys.tides, 'GET', `/v1/goals/${submitted.body.id}`);
          return ['completed', 'failed', 'canceled'].includes(body.status) ? body : undefined;
        },
        { timeoutMs: GOAL_DEADLINE_MS, intervalMs: 250, message: 'the goal ends' },
      );
      expect(goal?.status).toBe('completed');
      expect(assignments.map((task) => task.agentId)).toContain(oracleIdentity.agentId);
      const task = goal?.tasks.find((candidate) => candidate.assigneeId === oracleIdentity.agentId);
      expect(task).toMatchObject({ state: 'completed', result: TIDES });
      // The platform's services did all this without the broker refusing them anything.
      expect(infrastructure.permissionViolations()).toEqual([]);
    },
    GOAL_DEADLINE_MS + 30_000,
  );

  it('cannot be impersonated by another account’s agent', async () => {
    intruderIdentity = await requestAgentIdentity({ gatewayUrl: baseUrl, apiKey: keys.mallory });
    intruder = await connect({
      servers: infrastructure.natsUrl,
      authenticator: jwtAuthenticator(intruderIdentity.jwt, new TextEncoder().encode(intruderIdentity.seed)),
      inboxPrefix: `_INBOX.${intruderIdentity.agentId}`,
      reconnect: false,
    });
    const probe = new NatsPermissionProbe(intruder);
    const victim = oracleIdentity.agentId;
    const taskId = assignments[0].taskId;
    const report = JSON.stringify({ taskId, agentId: victim, state: 'completed', content: 'forged' });

    // Its subjects are the victim's alone: neither its tasks nor its reports are reachable.
    expect(await probe.subscribe(subjectFor(AssignTaskV1, victim))).toBe('refused');
    expect(await probe.publish(subjectFor(ReportOwnTaskV1, victim), report)).toBe('refused');
    expect(await probe.subscribe(`_INBOX.${victim}.>`)).toBe('refused');
    // On its own subject, a payload naming the victim is refused by the platform.
    const forged = await intruder.request(subjectFor(ReportOwnTaskV1, intruderIdentity.agentId), report, {
      timeout: 5_000,
    });
    expect(JSON.parse(decoder.decode(forged.data))).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    // Nor can it register a card into the victim's account, or under the victim's name.
    const card = {
      name: 'tide-oracle',
      description: 'An impostor',
      owner: 'tides-inc',
      endpoint: { kind: 'nats' },
      skills: [{ id: 'tides', name: 'Tide tables', description: 'Lies about tides', tags: [], examples: [] }],
    };
    const intoAccount = await intruder.request(
      subjectFor(RegisterOwnAgentV1, intruderIdentity.agentId),
      JSON.stringify(card),
      { timeout: 5_000 },
    );
    expect(JSON.parse(decoder.decode(intoAccount.data))).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const asVictim = await intruder.request(
      subjectFor(RegisterOwnAgentV1, intruderIdentity.agentId),
      JSON.stringify({ ...card, owner: 'mallory-ltd' }),
      { timeout: 5_000 },
    );
    expect(JSON.parse(decoder.decode(asVictim.data))).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    // The victim's task stands as it reported it.
    const { body: agent } = await rest<{ id: string; owner: string }>(keys.tides, 'GET', `/v1/agents/${victim}`);
    expect(agent).toMatchObject({ id: victim, owner: 'tides-inc' });
  });
});
