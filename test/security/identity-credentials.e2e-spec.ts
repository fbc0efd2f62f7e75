import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { createUser, type KeyPair } from '@nats-io/nkeys';
import type { AgentIdentityV1 } from '@ioa/contracts';
import {
  adminAuthHeaders,
  expectEventually,
  NatsPermissionProbe,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app.js';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { startServices } from '../support/platform-services.js';
import { AttackTally } from './support/attack-tally.js';

interface Credentials {
  agentId: string;
  accountId: string;
  jwt: string;
  expiresAt: string;
  created: boolean;
  revokedPublicKey: string | null;
  natsUrls: string[];
  inboxPrefix: string;
}

/** An external agent as the docs describe it: its own key pair, whose seed never leaves it. */
interface Agent {
  keys: KeyPair;
  credentials: Credentials;
}

/**
 * Agent identities end to end, on a real nats-server with JWT authentication: an agent makes its key pair, its
 * account gets it a JWT over REST, and the broker enforces what the JWT allows; rotation, revocation and expiry take
 * effect on the running broker. Each refusal the broker or the API makes is counted for the tally line.
 */
describe('agent identities: issue, rotate, revoke, expire (real broker with JWT auth)', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  const connections: NatsConnection[] = [];
  const memberKeys: Record<string, string> = {};
  const tally = new AttackTally('agent identities');

  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = adminAuthHeaders(),
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  const asMember = (account: string) => ({ authorization: `Bearer ${memberKeys[account]}` });

  async function newAgent(headers: Record<string, string>, extra: Record<string, unknown> = {}): Promise<Agent> {
    const keys = createUser();
    const { status, body } = await call<Credentials>(
      'POST',
      '/v1/agents/identities',
      { publicKey: keys.getPublicKey(), ...extra },
      headers,
    );
    expect(status).toBe(201);
    return { keys, credentials: body };
  }

  /** Connects as the agent would: its JWT, its own seed, its own inbox prefix; no retries. */
  async function connectAs(agent: { keys: KeyPair; jwt: string; agentId: string }): Promise<NatsConnection> {
    const connection = await connect({
      servers: infrastructure.natsUrl,
      name: `agent-${agent.agentId}`,
      authenticator: jwtAuthenticator(agent.jwt, agent.keys.getSeed()),
      inboxPrefix: `_INBOX.${agent.agentId}`,
      reconnect: false,
    });
    connections.push(connection);
    return connection;
  }

  const connectAgent = (agent: Agent) =>
    connectAs({ keys: agent.keys, jwt: agent.credentials.jwt, agentId: agent.credentials.agentId });

  /** The broker refuses the connection outright (revoked, expired or unknown credentials). */
  async function expectRefusedConnect(agent: { keys: KeyPair; jwt: string; agentId: string }): Promise<void> {
    await expect(connectAs(agent)).rejects.toThrow(/Authorization Violation|authentication|expired|revoked/i);
    tally.count('refused');
  }

  function expectApiRefusal(status: number, expected: number): void {
    expect(status).toBe(expected);
    tally.count('refused');
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure({ auth: true });
    infrastructure.applyEnvironment({ IOA_TRUST_DIR: infrastructure.trust!.root });
    services.push(...(await startServices([[RegistryModule, 'registry']], ['error', 'warn'])));
    gateway = await createGatewayApp({ logger: ['error', 'warn'] });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    for (const account of ['acme', 'globex']) {
      expect((await call('POST', '/v1/accounts', { id: account, name: account })).status).toBe(201);
      const key = await call<{ key: string }>('POST', `/v1/accounts/${account}/api-keys`, { name: 'agents' });
      expect(key.status).toBe(201);
      memberKeys[account] = key.body.key;
    }
  }, 120_000);

  afterAll(async () => {
    process.stdout.write(`${tally.report()}\n`);
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it('issues a JWT for the agent’s own public key; the agent acts under its own id and nowhere else', async () => {
    const agent = await newAgent(asMember('acme'));
    const other = await newAgent(asMember('globex'));
    expect(agent.credentials).toMatchObject({
      accountId: 'acme',
      created: true,
      revokedPublicKey: null,
      natsUrls: [infrastructure.natsUrl],
      inboxPrefix: `_INBOX.${agent.credentials.agentId}`,
    });
    expect(Date.parse(agent.credentials.expiresAt)).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    // The JWT is the agent's, but the registry never saw the seed: the JWT alone does not connect.
    const stranger = createUser();
    await expectRefusedConnect({ keys: stranger, jwt: agent.credentials.jwt, agentId: agent.credentials.agentId });

    const connection = await connectAgent(agent);
    const probe = new NatsPermissionProbe(connection);
    const own = `ioa.agent.${agent.credentials.agentId}`;
    const theirs = `ioa.agent.${other.credentials.agentId}`;
    const received: string[] = [];
    connection.subscribe(`${own}.>`, {
      callback: (_error, message) => {
        received.push(message.subject);
      },
    });
    for (const [subject, expected] of [
      [`${own}.heartbeat.v1`, 'allowed'],
      [`${own}.move.propose.v1`, 'allowed'],
      [`${theirs}.heartbeat.v1`, 'refused'],
      [`${theirs}.task.report.v1`, 'refused'],
      ['ioa.registry.identity.issue.v1', 'refused'],
      ['ioa.registry.identity.revoke.v1', 'refused'],
      ['$SYS.REQ.CLAIMS.UPDATE', 'refused'],
    ] as const) {
      expect([subject, await probe.publish(subject)]).toEqual([subject, expected]);
      tally.count(expected === 'refused' ? 'refused' : 'allowed');
    }
    for (const [subject, expected] of [
      [`${theirs}.task.v1`, 'refused'],
      [`_INBOX.${other.credentials.agentId}.>`, 'refused'],
      [`_INBOX.${agent.credentials.agentId}.>`, 'allowed'],
    ] as const) {
      expect([subject, await probe.subscribe(subject)]).toEqual([subject, expected]);
      tally.count(expected === 'refused' ? 'refused' : 'allowed');
    }
    await expectEventually(() => received.length === 2, { message: 'the agent hears its own subjects' });

    const identity = await call<AgentIdentityV1>(
      'GET',
      `/v1/agents/identities/${agent.credentials.agentId}`,
      undefined,
      asMember('acme'),
    );
    expect(identity.body).toMatchObject({ accountId: 'acme', status: 'active', publicKey: agent.keys.getPublicKey() });
    expect(JSON.stringify(identity.body)).not.toContain(agent.credentials.jwt);
  });

  it('rotation: the new key works, the old one is disconnected and refused', async () => {
    const agent = await newAgent(asMember('acme'));
    const before = await connectAgent(agent);
    const closed = before.closed();

    const nextKeys = createUser();
    const rotated = await call<Credentials>(
      'POST',
      '/v1/agents/identities',
      { publicKey: nextKeys.getPublicKey(), agentId: agent.credentials.agentId },
      asMember('acme'),
    );
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({
      agentId: agent.credentials.agentId,
      created: false,
      revokedPublicKey: agent.keys.getPublicKey(),
    });

    // The broker closes the old key's connection on its own: no restart, no reconnect from us.
    await expect(closed).resolves.toBeDefined();
    expect(before.isClosed()).toBe(true);
    tally.count('refused');
    await expectRefusedConnect({ keys: agent.keys, jwt: agent.credentials.jwt, agentId: agent.credentials.agentId });

    const after = await connectAs({ keys: nextKeys, jwt: rotated.body.jwt, agentId: agent.credentials.agentId });
    expect(await new NatsPermissionProbe(after).publish(`ioa.agent.${agent.credentials.agentId}.heartbeat.v1`)).toBe(
      'allowed',
    );
    tally.count('allowed');

    // A revoked key is refused for good, even by its own account.
    const reused = await call<{ code: string }>(
      'POST',
      '/v1/agents/identities',
      { publicKey: agent.keys.getPublicKey(), agentId: agent.credentials.agentId },
      asMember('acme'),
    );
    expectApiRefusal(reused.status, 409);
  });

  it('revocation: a connected agent is cut off at once and refused on reconnect, without a broker restart', async () => {
    const agent = await newAgent(asMember('acme'));
    const connection = await connectAgent(agent);
    const closed = connection.closed();

    const revoked = await call<AgentIdentityV1>(
      'DELETE',
      `/v1/agents/identities/${agent.credentials.agentId}`,
      undefined,
      asMember('acme'),
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked', revokedPublicKeys: [agent.keys.getPublicKey()] });
    await expect(closed).resolves.toBeDefined();
    tally.count('refused');
    await expectRefusedConnect({ keys: agent.keys, jwt: agent.credentials.jwt, agentId: agent.credentials.agentId });

    // Revoking again changes nothing; a new key brings the agent back under the same id.
    expect(
      (await call('DELETE', `/v1/agents/identities/${agent.credentials.agentId}`, undefined, asMember('acme'))).status,
    ).toBe(200);
    const keys = createUser();
    const back = await call<Credentials>(
      'POST',
      '/v1/agents/identities',
      { publicKey: keys.getPublicKey(), agentId: agent.credentials.agentId },
      asMember('acme'),
    );
    expect(back.body).toMatchObject({ agentId: agent.credentials.agentId, revokedPublicKey: null });
    await connectAs({ keys, jwt: back.body.jwt, agentId: agent.credentials.agentId });
    tally.count('allowed');
  });

  it('expiry: the broker ends the connection when the JWT expires and refuses it afterwards', async () => {
    const agent = await newAgent(asMember('acme'), { expiresInSeconds: 2 });
    expect(Date.parse(agent.credentials.expiresAt) - Date.now()).toBeLessThanOrEqual(2000);
    const connection = await connectAgent(agent);
    tally.count('allowed');
    await expect(connection.closed()).resolves.toBeDefined();
    tally.count('refused');
    // An expired JWT may pass CONNECT and be cut at once with "User Authentication Expired" (nats.js can resolve the
    // connect before the server's -ERR arrives), so what is asserted is that no session outlives the expiry.
    const again = await connectAgent(agent).catch((error: unknown) => error as Error);
    const closedBy = again instanceof Error ? again : await again.closed();
    expect(String(closedBy)).toMatch(/Authorization Violation|authentication|expired/i);
    tally.count('refused');
  }, 30_000);

  it("another account cannot see, rotate or revoke an agent's identity; bad input is a 4xx with a message", async () => {
    const agent = await newAgent(asMember('acme'));
    const path = `/v1/agents/identities/${agent.credentials.agentId}`;
    expectApiRefusal((await call('GET', path, undefined, asMember('globex'))).status, 404);
    expectApiRefusal((await call('DELETE', path, undefined, asMember('globex'))).status, 404);
    const takeover = await call(
      'POST',
      '/v1/agents/identities',
      { publicKey: createUser().getPublicKey(), agentId: agent.credentials.agentId },
      asMember('globex'),
    );
    expectApiRefusal(takeover.status, 404);
    // Nobody may claim an agent id that has no identity (it might be an agent someone else runs).
    const invented = await call(
      'POST',
      '/v1/agents/identities',
      { publicKey: createUser().getPublicKey(), agentId: '00000000-0000-4000-8000-000000000000' },
      asMember('globex'),
    );
    expectApiRefusal(invented.status, 404);
    // The same key cannot name two agents.
    const twice = await call(
      'POST',
      '/v1/agents/identities',
      { publicKey: agent.keys.getPublicKey() },
      asMember('globex'),
    );
    expectApiRefusal(twice.status, 409);
    expectApiRefusal(
      (await call('POST', '/v1/agents/identities', { publicKey: createUser().getPublicKey() }, {})).status,
      401,
    );

    const badChecksum = agent.keys.getPublicKey().slice(0, -1) + (agent.keys.getPublicKey().endsWith('A') ? 'B' : 'A');
    for (const body of [
      {},
      { publicKey: 'not-a-key' },
      { publicKey: badChecksum },
      { publicKey: 'SUAM' + 'A'.repeat(54) },
    ]) {
      const refused = await call<{ message: string }>('POST', '/v1/agents/identities', body, asMember('acme'));
      expect([body, refused.status]).toEqual([body, 400]);
      expect(refused.body.message).toMatch(/publicKey/);
      tally.count('refused');
    }
    expectApiRefusal((await call('GET', '/v1/agents/identities/not-a-uuid', undefined, asMember('acme'))).status, 400);

    // An admin sees every account's identities.
    const seen = await call<AgentIdentityV1>('GET', path);
    expect(seen.body.accountId).toBe('acme');
    tally.count('allowed');
  });
});
