import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AgentCameOnlineV1,
  AgentWentOfflineV1,
  GetAgentV1,
  HeartbeatAgentV1,
  ListAgentsV1,
  RegisterAgentV1,
} from '@ioa/contracts';
import { ContractClient, createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { RegistryModule } from '../registry.module.js';
import { watchRegistryEvents } from '../testing/registry-events.js';
import { newAgentRegistration } from '../testing/agent-registration.factory.js';

/** Presence with a one-second TTL and a fast sweep, so silence is noticed within about a second. */
describe('agent presence', () => {
  let infrastructure: TestInfrastructure;
  let service: INestMicroservice;
  let client: ContractClient;
  let external: NatsConnection;
  let watcher: Awaited<ReturnType<typeof watchRegistryEvents>>;

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ REGISTRY_HEARTBEAT_TTL_SECONDS: '1', REGISTRY_PRESENCE_SWEEP_MS: '100' });
    service = await createService(RegistryModule, { name: 'registry', logger: false });
    client = service.get(ContractClient);
    external = await connectRaw(infrastructure.natsUrl);
    watcher = await watchRegistryEvents(external);
  });

  afterAll(async () => {
    watcher?.stop();
    await external?.close();
    await service?.close();
    await infrastructure?.stop();
  });

  it('tells agents the configured heartbeat TTL', async () => {
    const { heartbeatTtlSeconds } = await client.request(RegisterAgentV1, newAgentRegistration());
    expect(heartbeatTtlSeconds).toBe(1);
  });

  it('marks a silent agent offline with went-offline, and its next heartbeat brings it back with came-online', async () => {
    const { agent } = await client.request(RegisterAgentV1, newAgentRegistration());

    const offline = await watcher.waitFor(AgentWentOfflineV1, agent.id);
    expect(offline.payload).toEqual({
      agentId: agent.id,
      name: agent.name,
      status: 'offline',
      lastSeenAt: agent.lastSeenAt,
    });
    expect(offline.messageId).toBe(`${agent.id}:offline:${agent.lastSeenAt}`);
    const stored = await client.request(GetAgentV1, { id: agent.id });
    expect(stored).toMatchObject({ status: 'offline', revision: 1, lastSeenAt: agent.lastSeenAt });

    const heartbeat = await rawRequest(external, HeartbeatAgentV1.subject, { id: agent.id });
    expect(heartbeat).toEqual({ ok: true, data: { status: 'online', heartbeatTtlSeconds: 1 } });

    const online = await watcher.waitFor(AgentCameOnlineV1, agent.id);
    const back = await client.request(GetAgentV1, { id: agent.id });
    expect(back).toMatchObject({ status: 'online', revision: 1 });
    expect(online.payload).toEqual({
      agentId: agent.id,
      name: agent.name,
      status: 'online',
      lastSeenAt: back.lastSeenAt,
    });
    expect(Date.parse(back.lastSeenAt)).toBeGreaterThan(Date.parse(agent.lastSeenAt));
  });

  it('brings an offline agent back online when it registers again', async () => {
    const registration = newAgentRegistration();
    const { agent } = await client.request(RegisterAgentV1, registration);
    await watcher.waitFor(AgentWentOfflineV1, agent.id);

    const again = await client.request(RegisterAgentV1, registration);

    expect(again).toMatchObject({ created: false, agent: { id: agent.id, status: 'online', revision: 1 } });
    await watcher.waitFor(AgentCameOnlineV1, agent.id);
    expect(watcher.about(agent.id).map((event) => event.subject)).toEqual([
      'ioa.registry.agent.registered.v1',
      AgentWentOfflineV1.subject,
      AgentCameOnlineV1.subject,
    ]);
  });

  it('keeps an agent that heartbeats online while a silent one goes offline', async () => {
    const { agent: talkative } = await client.request(RegisterAgentV1, newAgentRegistration());
    const { agent: silent } = await client.request(RegisterAgentV1, newAgentRegistration());

    // The talkative agent heartbeats on every poll (every 200 ms, well within the 1 s TTL) until the silent one,
    // registered after it, has been swept.
    await expectEventually(
      async () => {
        await client.request(HeartbeatAgentV1, { id: talkative.id });
        return watcher.about(silent.id).some((event) => event.subject === AgentWentOfflineV1.subject);
      },
      { intervalMs: 200 },
    );

    await expect(client.request(GetAgentV1, { id: talkative.id })).resolves.toMatchObject({ status: 'online' });
    expect(watcher.about(talkative.id).map((event) => event.subject)).toEqual(['ioa.registry.agent.registered.v1']);
    const offline = await client.request(ListAgentsV1, { ids: [talkative.id, silent.id], status: 'offline' });
    expect(offline.items.map((agent) => agent.id)).toEqual([silent.id]);
  });

  it('answers the heartbeat of an unknown agent with NOT_FOUND, telling it to register again', async () => {
    const reply = await rawRequest(external, HeartbeatAgentV1.subject, { id: '00000000-0000-4000-8000-000000000001' });

    expect(reply.ok).toBe(false);
    expect(reply.error).toMatchObject({ code: 'NOT_FOUND', retryable: false });
    expect(reply.error?.message).toMatch(/register it again/);
  });

  it('after an outage longer than the TTL, gives live agents one TTL to heartbeat before sweeping them', async () => {
    const { agent } = await client.request(RegisterAgentV1, newAgentRegistration());
    await service.close();
    const downAt = Date.now();
    // The outage: the agent's heartbeats cannot be answered for longer than its TTL.
    await expectEventually(() => Date.now() - downAt > 1_500, { intervalMs: 100 });

    service = await createService(RegistryModule, { name: 'registry', logger: false });
    client = service.get(ContractClient);
    const upAt = Date.now();
    // The agent's next heartbeat comes within its period (a third of the TTL), after several sweep ticks.
    await expectEventually(() => Date.now() - upAt > 350, { intervalMs: 50 });
    const heartbeat = await rawRequest(external, HeartbeatAgentV1.subject, { id: agent.id });
    expect(heartbeat).toEqual({ ok: true, data: { status: 'online', heartbeatTtlSeconds: 1 } });

    expect(watcher.about(agent.id).map((event) => event.subject)).toEqual(['ioa.registry.agent.registered.v1']);
    await expect(client.request(GetAgentV1, { id: agent.id })).resolves.toMatchObject({ status: 'online' });
  });
});
