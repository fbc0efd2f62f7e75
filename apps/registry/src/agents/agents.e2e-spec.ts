import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { DataSource } from 'typeorm';
import {
  ALL_CONTRACTS,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  DeregisterAgentV1,
  GetAgentIdentityV1,
  IssueAgentIdentityV1,
  RevokeAgentIdentityV1,
  RegisterOwnAgentV1,
  HeartbeatOwnAgentV1,
  UpdateOwnAgentV1,
  DeregisterOwnAgentV1,
  subjectFor,
  GetAgentV1,
  HeartbeatAgentV1,
  ListAgentsV1,
  RegisterAgentV1,
  RegistryListDeadLettersV1,
  RegistryReplayDeadLetterV1,
  REGISTRY_EVENTS_STREAM,
  RegistryHealthV1,
  UpdateAgentV1,
  type RequestContract,
} from '@ioa/contracts';
import { OutboxEventEntity, OutboxRelay } from '@ioa/database';
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

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('the agent registry over NATS', () => {
  let infrastructure: TestInfrastructure;
  let service: INestMicroservice;
  let client: ContractClient;
  let external: NatsConnection;
  let watcher: Awaited<ReturnType<typeof watchRegistryEvents>>;

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment();
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

  it('registers an agent and returns its card by id and by name', async () => {
    const registration = newAgentRegistration({
      provider: { organization: 'Docs Team', url: 'https://docs.example.com' },
      documentationUrl: 'https://docs.example.com/agents/translator',
      metadata: { region: 'eu', nested: { tier: 2 } },
    });

    const reply = await client.request(RegisterAgentV1, registration);

    expect(reply.created).toBe(true);
    expect(reply.heartbeatTtlSeconds).toBe(30);
    expect(reply.agent).toMatchObject({ ...registration, status: 'online', revision: 1 });
    expect(reply.agent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.agent.registeredAt).toBe(reply.agent.updatedAt);
    await expect(client.request(GetAgentV1, { id: reply.agent.id })).resolves.toEqual(reply.agent);
    await expect(client.request(GetAgentV1, { name: registration.name })).resolves.toEqual(reply.agent);
  });

  it('fills defaults for omitted optional fields', async () => {
    const { defaultInputModes, defaultOutputModes, version, metadata, ...minimal } = newAgentRegistration();
    void [defaultInputModes, defaultOutputModes, version, metadata];
    const reply = await rawRequest(external, RegisterAgentV1.subject, minimal);
    expect(reply.data).toMatchObject({
      agent: { defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], version: '1.0.0', metadata: {} },
    });
  });

  it('publishes agent-registered with the whole card and a stable message id', async () => {
    const { agent } = await client.request(RegisterAgentV1, newAgentRegistration());

    const event = await watcher.waitFor(AgentRegisteredV1, agent.id);

    expect(event.subject).toBe(AgentRegisteredV1.subject);
    expect(event.payload).toEqual({ agent });
    expect(event.messageId).toBe(`${agent.id}:${agent.registeredAt}:1`);
  });

  it('updates the card when the same owner registers the same name again', async () => {
    const registration = newAgentRegistration();
    const first = await client.request(RegisterAgentV1, registration);

    const second = await client.request(RegisterAgentV1, {
      ...registration,
      description: 'Translates technical documents between English, German and French.',
      version: '1.1.0',
    });

    expect(second.created).toBe(false);
    expect(second.agent).toMatchObject({ id: first.agent.id, revision: 2, version: '1.1.0', status: 'online' });
    expect(second.agent.registeredAt).toBe(first.agent.registeredAt);
    expect(Date.parse(second.agent.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.agent.updatedAt));
    const updated = await watcher.waitFor(AgentUpdatedV1, first.agent.id);
    expect(updated.payload).toEqual({ agent: second.agent });
    expect(updated.messageId).toBe(`${first.agent.id}:${first.agent.registeredAt}:2`);
  });

  it('treats a re-registration with an unchanged card as a heartbeat: same revision, no updated event', async () => {
    const registration = newAgentRegistration({ metadata: { b: 1, a: { y: 2, x: 1 } } });
    const first = await client.request(RegisterAgentV1, registration);

    // Key order differs from what jsonb stored: still the same card.
    const again = await client.request(RegisterAgentV1, { ...registration, metadata: { a: { x: 1, y: 2 }, b: 1 } });
    expect(again).toMatchObject({ created: false, agent: { id: first.agent.id, revision: 1 } });
    expect(Date.parse(again.agent.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(first.agent.lastSeenAt));

    // Events leave in commit order: once revision 2's event is out, an event for the no-op would have been too.
    await client.request(RegisterAgentV1, { ...registration, description: 'Now also proofreads.' });
    await expectEventually(() => watcher.about(first.agent.id).some((event) => event.messageId?.endsWith(':2')));
    expect(watcher.about(first.agent.id).map((event) => event.subject)).toEqual([
      AgentRegisteredV1.subject,
      AgentUpdatedV1.subject,
    ]);
  });

  it('refuses the same name under another owner with a clear CONFLICT', async () => {
    const registration = newAgentRegistration({ owner: 'alice' });
    await client.request(RegisterAgentV1, registration);

    const reply = await rawRequest(external, RegisterAgentV1.subject, { ...registration, owner: 'mallory' });

    expect(reply.ok).toBe(false);
    expect(reply.error).toEqual({
      code: 'CONFLICT',
      message: `Agent name "${registration.name}" is already registered by another owner; choose another name`,
      details: { name: registration.name },
      retryable: false,
    });
    await expect(client.request(GetAgentV1, { name: registration.name })).resolves.toMatchObject({ owner: 'alice' });
  });

  it('lets the owner update fields, keeps absent ones, and clears optional ones with null', async () => {
    const registration = newAgentRegistration({
      provider: { organization: 'Docs Team' },
      documentationUrl: 'https://docs.example.com/translator',
    });
    const { agent } = await client.request(RegisterAgentV1, registration);

    const updated = await client.request(UpdateAgentV1, {
      id: agent.id,
      owner: registration.owner,
      description: 'Translates and summarises documents.',
      endpoint: { kind: 'http', url: 'http://translator.internal:8080/tasks' },
      provider: null,
      documentationUrl: null,
    });

    expect(updated).toMatchObject({
      id: agent.id,
      revision: 2,
      description: 'Translates and summarises documents.',
      endpoint: { kind: 'http', url: 'http://translator.internal:8080/tasks' },
      skills: registration.skills,
      version: registration.version,
    });
    expect(updated).not.toHaveProperty('provider');
    expect(updated).not.toHaveProperty('documentationUrl');
    await expect(client.request(GetAgentV1, { id: agent.id })).resolves.toEqual(updated);
    const event = await watcher.waitFor(AgentUpdatedV1, agent.id);
    expect(event.payload).toEqual({ agent: updated });

    // Nothing changes: the revision stays.
    const noop = await client.request(UpdateAgentV1, { id: agent.id, owner: registration.owner, version: '1.0.0' });
    expect(noop.revision).toBe(2);
  });

  it('refuses update and deregister by anyone but the owner with FORBIDDEN', async () => {
    const { agent } = await client.request(RegisterAgentV1, newAgentRegistration({ owner: 'alice' }));

    const update = await rawRequest(external, UpdateAgentV1.subject, {
      id: agent.id,
      owner: 'mallory',
      description: 'Hijacked',
    });
    const deregister = await rawRequest(external, DeregisterAgentV1.subject, { id: agent.id, owner: 'mallory' });

    expect(update.error).toMatchObject({ code: 'FORBIDDEN', retryable: false });
    expect(update.error?.message).toBe(`Only the owner of agent "${agent.name}" may update it`);
    expect(deregister.error).toMatchObject({ code: 'FORBIDDEN' });
    await expect(client.request(GetAgentV1, { id: agent.id })).resolves.toEqual(agent);
  });

  it('answers unknown ids and names with NOT_FOUND', async () => {
    for (const [contract, payload] of [
      [GetAgentV1, { id: UNKNOWN_ID }],
      [GetAgentV1, { name: 'nobody-here' }],
      [UpdateAgentV1, { id: UNKNOWN_ID, owner: 'alice', description: 'x' }],
      [DeregisterAgentV1, { id: UNKNOWN_ID, owner: 'alice' }],
      [HeartbeatAgentV1, { id: UNKNOWN_ID }],
    ] as const) {
      const reply = await rawRequest(external, contract.subject, payload);
      expect({ subject: contract.subject, error: reply.error }).toMatchObject({
        subject: contract.subject,
        error: { code: 'NOT_FOUND', retryable: false },
      });
    }
  });

  it('deregisters for the owner: event, NOT_FOUND afterwards, and the name is free again', async () => {
    const registration = newAgentRegistration({ owner: 'alice' });
    const { agent } = await client.request(RegisterAgentV1, registration);

    await expect(client.request(DeregisterAgentV1, { id: agent.id, owner: 'alice' })).resolves.toEqual({
      id: agent.id,
      deregistered: true,
    });

    await expect(client.request(GetAgentV1, { id: agent.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const event = await watcher.waitFor(AgentDeregisteredV1, agent.id);
    expect(event.payload).toEqual({ agentId: agent.id, name: agent.name, revision: 2 });
    expect(event.messageId).toBe(`${agent.id}:${agent.registeredAt}:2`);
    const again = await client.request(RegisterAgentV1, { ...registration, owner: 'bob' });
    expect(again).toMatchObject({ created: true, agent: { owner: 'bob', revision: 1 } });
    expect(again.agent.id).not.toBe(agent.id);
  });

  it('lists newest registration first, filtered by owner, ids and status, in pages with a total', async () => {
    const owner = `lister-${Date.now()}`;
    const registered = [];
    for (let index = 0; index < 5; index++) {
      registered.push((await client.request(RegisterAgentV1, newAgentRegistration({ owner }))).agent);
    }
    const newestFirst = [...registered].reverse().map((agent) => agent.id);

    const firstPage = await client.request(ListAgentsV1, { owner, limit: 2, offset: 0 });
    const lastPage = await client.request(ListAgentsV1, { owner, limit: 2, offset: 4 });
    expect(firstPage.total).toBe(5);
    expect(firstPage.items.map((agent) => agent.id)).toEqual(newestFirst.slice(0, 2));
    expect(lastPage.items.map((agent) => agent.id)).toEqual(newestFirst.slice(4));

    const byIds = await client.request(ListAgentsV1, { ids: [registered[1].id, registered[3].id, UNKNOWN_ID] });
    expect(byIds.items.map((agent) => agent.id).sort()).toEqual([registered[1].id, registered[3].id].sort());
    expect(await client.request(ListAgentsV1, { ids: [] })).toEqual({ items: [], total: 0 });

    // Agents heartbeat far within the default TTL here, so all are online.
    expect((await client.request(ListAgentsV1, { owner, status: 'online' })).total).toBe(5);
    expect((await client.request(ListAgentsV1, { owner, status: 'offline' })).total).toBe(0);

    // Query-string style numbers (the gateway forwards them) are accepted.
    const coerced = await rawRequest(external, ListAgentsV1.subject, { owner, limit: '1' });
    expect((coerced.data as { items: unknown[] }).items).toHaveLength(1);
  });

  it('never fails concurrent registrations of one name by its owner: one creates, the others update', async () => {
    const registration = newAgentRegistration();
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        rawRequest(external, RegisterAgentV1.subject, { ...registration, version: `1.0.${index}` }),
      ),
    );

    expect(replies.every((reply) => reply.ok)).toBe(true);
    const data = replies.map((reply) => reply.data as { created: boolean; agent: { id: string } });
    expect(data.filter((reply) => reply.created)).toHaveLength(1);
    expect(new Set(data.map((reply) => reply.agent.id)).size).toBe(1);
  });

  it('gives concurrent registrations of one name by different owners one winner and CONFLICTs, never a 500', async () => {
    const registration = newAgentRegistration();
    const replies = await Promise.all(
      ['alice', 'bob', 'carol', 'dave'].map((owner) =>
        rawRequest(external, RegisterAgentV1.subject, { ...registration, owner }),
      ),
    );

    expect(replies.filter((reply) => reply.ok)).toHaveLength(1);
    expect(replies.filter((reply) => !reply.ok).map((reply) => reply.error?.code)).toEqual([
      'CONFLICT',
      'CONFLICT',
      'CONFLICT',
    ]);
  });

  describe('event delivery', () => {
    it('leaves nothing in the outbox once the reply is out', async () => {
      await client.request(RegisterAgentV1, newAgentRegistration());
      expect(await service.get(DataSource).getRepository(OutboxEventEntity).count()).toBe(0);
    });

    it('publishes events that a crashed replica left in the outbox, and the stream keeps each event once', async () => {
      const { agent } = await client.request(RegisterAgentV1, newAgentRegistration());
      await watcher.waitFor(AgentRegisteredV1, agent.id);
      const streams = await jetstreamManager(external);
      const storedBefore = (await streams.streams.info(REGISTRY_EVENTS_STREAM)).state.messages;

      // What a replica that died between commit and publish leaves behind: here, its first event again, plus one
      // that never went out.
      const outbox = service.get(DataSource).getRepository(OutboxEventEntity);
      const anHourAgo = new Date(Date.now() - 3_600_000);
      await outbox.insert([
        {
          subject: AgentRegisteredV1.subject,
          messageId: `${agent.id}:${agent.registeredAt}:1`,
          payload: { agent },
          createdAt: anHourAgo,
        },
        {
          subject: AgentUpdatedV1.subject,
          messageId: `${agent.id}:${agent.registeredAt}:2`,
          payload: { agent: { ...agent, revision: 2 } },
          createdAt: anHourAgo,
        },
      ]);
      await service.get(OutboxRelay).flush();

      await watcher.waitFor(AgentUpdatedV1, agent.id);
      expect(await outbox.count()).toBe(0);
      // The repeated registration reached core subscribers (at least once) but the stream stored only the new event.
      expect((await streams.streams.info(REGISTRY_EVENTS_STREAM)).state.messages).toBe(storedBefore + 1);
    });
  });

  describe('malformed payloads', () => {
    /** Whether `body` is an object with a field that names the actor, on a subject that names one. */
    const namesAnActor = (contract: RequestContract<unknown, unknown>, body: string): boolean => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return false;
      }
      return (
        typeof parsed === 'object' &&
        parsed !== null &&
        (contract.actor?.payloadFields ?? []).some((field) => field in parsed)
      );
    };
    /** An agent's own subjects are addressed: they are asked on `ioa.agent.<an agent id>.…`. */
    const concreteSubject = (contract: RequestContract<unknown, unknown>) =>
      contract.subject.includes('*') ? subjectFor(contract, UNKNOWN_ID) : contract.subject;

    const registrySubjects = ALL_CONTRACTS.filter(
      (contract): contract is RequestContract<unknown, unknown> =>
        contract.kind === 'request' && contract.owner === 'registry' && contract !== RegistryHealthV1,
    );

    it('covers every registry request subject', () => {
      expect(registrySubjects.map((contract) => contract.subject).sort()).toEqual(
        [
          RegisterAgentV1,
          UpdateAgentV1,
          DeregisterAgentV1,
          GetAgentV1,
          ListAgentsV1,
          HeartbeatAgentV1,
          RegistryListDeadLettersV1,
          RegistryReplayDeadLetterV1,
          IssueAgentIdentityV1,
          GetAgentIdentityV1,
          RevokeAgentIdentityV1,
          RegisterOwnAgentV1,
          HeartbeatOwnAgentV1,
          UpdateOwnAgentV1,
          DeregisterOwnAgentV1,
        ]
          .map((contract) => contract.subject)
          .sort(),
      );
    });

    it.each([
      ['invalid JSON', '{"name": nope', 'MALFORMED_PAYLOAD'],
      ['truncated JSON', '{"id": "', 'MALFORMED_PAYLOAD'],
      ['a JSON array', '[1, 2]', 'VALIDATION_FAILED'],
      ['a JSON string', '"register me"', 'VALIDATION_FAILED'],
      ['JSON null', 'null', 'VALIDATION_FAILED'],
      [
        'fields of the wrong type',
        // `id` 4.5: a UUID nowhere, and not the integer a dead letter's id is.
        JSON.stringify({ id: 4.5, name: 42, owner: 7, status: 'sleepy', limit: 'many', skills: 'all', afterId: 'x' }),
        'VALIDATION_FAILED',
      ],
    ])('answers %s on every registry subject with a structured error, and keeps serving', async (_, body, code) => {
      for (const contract of registrySubjects) {
        const reply = await rawRequest(external, concreteSubject(contract), body);
        // On an agent's own subject, an `id` that is not the subject's agent names someone else: FORBIDDEN first.
        const expected = namesAnActor(contract, body) ? 'FORBIDDEN' : code;
        expect({ subject: contract.subject, ok: reply.ok, code: reply.error?.code }).toEqual({
          subject: contract.subject,
          ok: false,
          code: expected,
        });
        expect(reply.error?.retryable).toBe(false);
        expect(typeof reply.error?.message).toBe('string');
      }
      const health = await rawRequest(external, RegistryHealthV1.subject, {});
      expect(health).toMatchObject({ ok: true, data: { service: 'registry', status: 'ok', database: 'up' } });
    });

    it.each([
      [
        'duplicate skill ids',
        RegisterAgentV1,
        () => {
          const registration = newAgentRegistration();
          return { ...registration, skills: [registration.skills[0], registration.skills[0]] };
        },
        'skills',
      ],
      [
        'an http endpoint without url',
        RegisterAgentV1,
        () => newAgentRegistration({ endpoint: { kind: 'http' } }),
        'endpoint.url',
      ],
      ['a name that is not a slug', RegisterAgentV1, () => newAgentRegistration({ name: 'Not A Slug' }), 'name'],
      [
        'modes given as a string',
        RegisterAgentV1,
        () => ({ ...newAgentRegistration(), defaultInputModes: 'text/plain' }),
        'defaultInputModes',
      ],
      [
        'null where a value is required',
        RegisterAgentV1,
        () => ({ ...newAgentRegistration(), metadata: null }),
        'metadata',
      ],
      ['no skills', RegisterAgentV1, () => newAgentRegistration({ skills: [] }), 'skills'],
      ['both id and name', GetAgentV1, () => ({ id: UNKNOWN_ID, name: 'both' }), 'id'],
      ['an invalid id next to a name', GetAgentV1, () => ({ id: 'not-a-uuid', name: 'both' }), 'id'],
      ['neither id nor name', GetAgentV1, () => ({}), 'id'],
      [
        'null for a required update field',
        UpdateAgentV1,
        () => ({ id: UNKNOWN_ID, owner: 'a', description: null }),
        'description',
      ],
      [
        'an invalid version in an update',
        UpdateAgentV1,
        () => ({ id: UNKNOWN_ID, owner: 'a', version: '' }),
        'version',
      ],
      ['a page size out of range', ListAgentsV1, () => ({ limit: 10_000 }), 'limit'],
    ] as const)('answers %s with VALIDATION_FAILED naming the field', async (_, contract, body, property) => {
      const reply = await rawRequest(external, contract.subject, body());
      expect(reply.error?.code).toBe('VALIDATION_FAILED');
      expect(reply.error?.details).toEqual(expect.arrayContaining([expect.objectContaining({ property })]));
    });
  });

  it('serves an external agent that has nothing but a NATS client and JSON', async () => {
    const card = {
      name: 'external-echo',
      description: 'Echoes whatever it is sent; written in Go.',
      skills: [{ id: 'echo', name: 'Echo', description: 'Replies with the input.', tags: ['test'], examples: [] }],
      owner: 'go-team',
      endpoint: { kind: 'nats' },
      somethingFromTheFuture: true,
    };

    const registered = await rawRequest(external, RegisterAgentV1.subject, card);
    expect(registered).toMatchObject({ ok: true, data: { created: true, agent: { name: 'external-echo' } } });
    const { agent } = registered.data as { agent: { id: string } };
    expect(registered.data).not.toHaveProperty('agent.somethingFromTheFuture');

    expect(await rawRequest(external, HeartbeatAgentV1.subject, { id: agent.id })).toEqual({
      ok: true,
      data: { status: 'online', heartbeatTtlSeconds: 30 },
    });
    expect(await rawRequest(external, GetAgentV1.subject, { name: 'external-echo' })).toMatchObject({
      ok: true,
      data: { id: agent.id, status: 'online' },
    });
    expect(await rawRequest(external, DeregisterAgentV1.subject, { id: agent.id, owner: 'go-team' })).toEqual({
      ok: true,
      data: { id: agent.id, deregistered: true },
    });
  });
});
