import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { createUser } from '@nats-io/nkeys';
import {
  GetAgentV1,
  HEADER_PRINCIPAL,
  IssueAgentIdentityV1,
  RegisterAgentV1,
  RevokeAgentIdentityV1,
  type AgentCardV1,
  type Principal,
  type RegisterAgentV1Response,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import { startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { RegistryModule } from '../registry.module.js';
import { newAgentRegistration } from '../testing/agent-registration.factory.js';
import { AgentIdentitiesRepository } from './agent-identities.repository.js';
import { AgentIdentityEntity } from './agent-identity.entity.js';

interface Reply<T> {
  ok: boolean;
  data?: T;
  error?: { code: string; message: string };
}

/** The registry as identity authority on a broker with JWT auth, asked as the gateway asks it. */
describe('agent identities in the registry (real broker with JWT auth, real database)', () => {
  let infrastructure: TestInfrastructure;
  let service: INestMicroservice;
  let gateway: NatsConnection;
  let host: NatsConnection;

  async function ask<T>(connection: NatsConnection, subject: string, body: unknown, principal?: Principal) {
    const headers = natsHeaders();
    if (principal) headers.set(HEADER_PRINCIPAL, JSON.stringify(principal));
    const reply = await connection.request(subject, JSON.stringify(body), { timeout: 5000, headers });
    return reply.json<Reply<T>>();
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure({ auth: true });
    infrastructure.applyEnvironment({ IOA_TRUST_DIR: infrastructure.trust!.root });
    service = await createService(RegistryModule, { name: 'registry', logger: false });
    gateway = await infrastructure.connectAsService('gateway');
    host = await infrastructure.connectAsService('agent-host');
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await infrastructure?.stop();
  });

  it("takes a revoked agent's card offline at once: it cannot heartbeat any more", async () => {
    const registered = await ask<RegisterAgentV1Response>(host, RegisterAgentV1.subject, newAgentRegistration());
    const agentId = registered.data!.agent.id;
    // The agent's identity, as issuance for this id would have stored it (issuing for an id that has none is refused).
    await service.get(AgentIdentitiesRepository).transaction((transaction) =>
      transaction.save(
        Object.assign(new AgentIdentityEntity(), {
          agentId,
          accountId: 'acme',
          publicKey: createUser().getPublicKey(),
          issuedAt: new Date(),
          expiresAt: new Date(Date.now() + 3_600_000),
          revokedAt: null,
        }),
      ),
    );

    const revoked = await ask(
      gateway,
      RevokeAgentIdentityV1.subject,
      { agentId },
      { accountId: 'acme', role: 'member' },
    );
    expect(revoked).toMatchObject({ ok: true, data: { status: 'revoked' } });
    const card = await ask<AgentCardV1>(gateway, GetAgentV1.subject, { id: agentId });
    expect(card.data?.status).toBe('offline');
  });

  it('issues only to an account: a request without Ioa-Principal is UNAUTHENTICATED', async () => {
    const refused = await ask(gateway, IssueAgentIdentityV1.subject, { publicKey: createUser().getPublicKey() });
    expect(refused).toMatchObject({ ok: false, error: { code: 'UNAUTHENTICATED' } });
  });

  it('refuses a public key with a broken checksum as VALIDATION_FAILED', async () => {
    const key = createUser().getPublicKey();
    const broken = key.slice(0, -2) + (key.endsWith('AA') ? 'BB' : 'AA');
    const refused = await ask(
      gateway,
      IssueAgentIdentityV1.subject,
      { publicKey: broken },
      { accountId: 'acme', role: 'member' },
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });
});
