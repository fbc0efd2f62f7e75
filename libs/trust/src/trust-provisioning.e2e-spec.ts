import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Algorithms, createUser, decode, encodeUser, type Account, type User } from '@nats-io/jwt';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { expectEventually, NatsPermissionProbe } from '@ioa/testing';
import {
  AGENT_MAX_SUBSCRIPTIONS,
  credsText,
  encodeIoaAccountJwt,
  IOA_MAX_CONNECTIONS,
  MAX_PAYLOAD_BYTES,
  provisionTrust,
  readKeyPair,
  serviceCredsPath,
  type ProvisionedTrust,
} from './index.js';

// The findings the design asked for, checked here on the installed nats-server (2.9.10 on Debian 12):
// - a scoped signing key's template with `{{name()}}` is expanded per user (the user JWT's name claim);
// - the `full` resolver takes account JWT updates pushed on `$SYS.REQ.CLAIMS.UPDATE` while running, so a
//   revocation disconnects and refuses the revoked user without a restart.
describe('trust provisioning on a real nats-server', () => {
  let root: string;
  let trust: ProvisionedTrust;
  let nats: EmbeddedNats;
  const open: NatsConnection[] = [];

  const connectWith = async (name: string, creds?: string): Promise<NatsConnection> => {
    const connection = await connect({
      servers: nats.url,
      name,
      reconnect: false,
      ...(creds
        ? { authenticator: credsAuthenticator(new TextEncoder().encode(creds)), inboxPrefix: `_INBOX.${name}` }
        : {}),
    });
    open.push(connection);
    return connection;
  };
  const agentCreds = async (agentId: string, user = createUser()) => {
    const jwt = await encodeUser(
      agentId,
      user,
      trust.ioaAccountPublicKey,
      {},
      { scopedUser: true, signer: readKeyPair(trust.layout.agentSigningSeed), algorithm: Algorithms.v2 },
    );
    return { creds: credsText(jwt, user), publicKey: user.getPublicKey() };
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ioa-trust-spec-'));
    trust = await provisionTrust(root);
    nats = await startNatsServer({ configFile: trust.layout.serverConfig });
  });

  afterAll(async () => {
    await Promise.allSettled(open.map((connection) => connection.close()));
    await nats?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps its keys on a second run and re-signs the credentials', async () => {
    const again = await provisionTrust(root);
    expect(trust.created).toBe(true);
    expect(again.created).toBe(false);
    expect(again.operatorPublicKey).toBe(trust.operatorPublicKey);
    expect(again.ioaAccountPublicKey).toBe(trust.ioaAccountPublicKey);
    expect(again.agentSigningPublicKey).toBe(trust.agentSigningPublicKey);
    const registry = decode<User>(
      readFileSync(serviceCredsPath(again.layout.credsDir, 'registry'), 'utf8').split('\n')[1],
    );
    expect(registry.name).toBe('registry');
    expect(registry.iss).toBe(trust.ioaAccountPublicKey);
  });

  it('bounds what the IOA account may hold: payload size and connections', () => {
    const ioa = decode<Account>(readFileSync(trust.layout.ioaAccountJwt, 'utf8').trim());
    expect(ioa.nats.limits).toMatchObject({ payload: MAX_PAYLOAD_BYTES, conn: IOA_MAX_CONNECTIONS });
    expect(ioa.nats.signing_keys).toEqual([
      expect.objectContaining({ template: expect.objectContaining({ subs: AGENT_MAX_SUBSCRIPTIONS }) }),
    ]);
  });

  it('refuses a connection without credentials', async () => {
    await expect(connectWith('anonymous')).rejects.toThrow(/Authorization/i);
  });

  it('lets a service in with its own user', async () => {
    const creds = readFileSync(serviceCredsPath(trust.layout.credsDir, 'registry'), 'utf8');
    const registry = await connectWith('registry', creds);
    const probe = new NatsPermissionProbe(registry);
    expect(await probe.subscribe('ioa.registry.agent.get.v1', 'registry')).toBe('allowed');
    expect(await probe.publish('ioa.registry.agent.registered.v1')).toBe('allowed');
    expect(await probe.publish('ioa.chat.group.state-changed.v1')).toBe('refused');
  });

  it('expands {{name()}} in the agent signing key template to the agent id', async () => {
    const { creds } = await agentCreds('agent-alpha');
    const agent = await connectWith('agent-alpha', creds);
    const probe = new NatsPermissionProbe(agent);
    expect(await probe.publish('ioa.agent.agent-alpha.heartbeat.v1')).toBe('allowed');
    expect(await probe.subscribe('ioa.agent.agent-alpha.task.v1')).toBe('allowed');
    expect(await probe.subscribe('_INBOX.agent-alpha.x')).toBe('allowed');
    expect(await probe.publish('ioa.agent.agent-beta.heartbeat.v1')).toBe('refused');
    expect(await probe.subscribe('ioa.agent.agent-beta.task.v1')).toBe('refused');
    expect(await probe.subscribe('>')).toBe('refused');
  });

  it('revokes an agent on the running broker through the full resolver', async () => {
    const { creds, publicKey } = await agentCreds('agent-revoked');
    const agent = await connectWith('agent-revoked', creds);
    const closed = agent.closed();

    const ioaJwt = await encodeIoaAccountJwt(
      readKeyPair(trust.layout.ioaAccountSeed),
      readKeyPair(trust.layout.operatorSigningSeed),
      readKeyPair(trust.layout.agentSigningSeed),
      { [publicKey]: Math.floor(Date.now() / 1000) + 1 },
    );
    const system = await connectWith('ioa-sys', readFileSync(trust.layout.systemCreds, 'utf8'));
    const reply = await system.request('$SYS.REQ.CLAIMS.UPDATE', ioaJwt, { timeout: 5000 });
    expect(new TextDecoder().decode(reply.data)).toMatch(/"code":200/);

    await expectEventually(() => agent.isClosed(), { timeoutMs: 10_000, message: 'revoked agent still connected' });
    await closed;
    await expect(connectWith('agent-revoked', creds)).rejects.toThrow(/Authorization/i);
  });
});
