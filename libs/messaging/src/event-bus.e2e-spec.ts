import { Injectable, Module, type INestMicroservice, type OnApplicationBootstrap } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import {
  AgentCameOnlineV1,
  AgentWentOfflineV1,
  DEAD_LETTERS_STREAM,
  DiscoveryHealthV1,
  DiscoveryListDeadLettersV1,
  DiscoveryReplayDeadLetterV1,
  REGISTRY_EVENTS_STREAM,
  type AgentPresenceChangedV1Event,
  type DeadLetterV1,
  type HealthV1Response,
  type ListDeadLettersV1Response,
} from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { connectRaw, expectEventually, rawRequest } from '@ioa/testing';
import { createService } from './create-service.js';
import { EventBus, on } from './event-bus.js';
import { HealthModule } from './health.js';
import { MessagingModule } from './messaging.module.js';

const SERVICE = 'discovery';
const WENT_OFFLINE_CONSUMER = 'discovery-registry-agent-went-offline-v1';
const CAME_ONLINE_CONSUMER = 'discovery-registry-agent-came-online-v1';
const BACKOFF_MS = [100, 200];
const MAX_DELIVERIES = 3;

/** What the probe consumer saw, and the switches a test flips to make its handler fail or hang. */
const seen = {
  /** Every call of a handler, by agent name: when it was delivered. */
  deliveries: new Map<string, number[]>(),
  handled: [] as Array<{ subject: string; name: string }>,
  /** Names whose handler throws (a poison event: valid payload, failing handler). */
  poison: new Set<string>(),
  /** Handlers for this name wait until the gate opens. */
  hangOn: undefined as string | undefined,
  gate: undefined as Promise<void> | undefined,
  /** Handlers for these names take this long (a slow handler doing real work, not a test waiting). */
  slowMs: new Map<string, number>(),
};

@Injectable()
class ProbeConsumer implements OnApplicationBootstrap {
  constructor(private readonly events: EventBus) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.events.subscribe({
      durable: SERVICE,
      handlers: [
        on(AgentWentOfflineV1, (event, message) => this.handle(event, message.subject)),
        on(AgentCameOnlineV1, (event, message) => this.handle(event, message.subject)),
      ],
    });
  }

  private async handle(event: AgentPresenceChangedV1Event, subject: string): Promise<void> {
    seen.deliveries.set(event.name, [...(seen.deliveries.get(event.name) ?? []), Date.now()]);
    if (seen.poison.has(event.name)) throw new Error(`cannot index ${event.name}`);
    if (event.name === seen.hangOn) await seen.gate;
    const slowMs = seen.slowMs.get(event.name);
    if (slowMs) await new Promise((resolve) => setTimeout(resolve, slowMs));
    seen.handled.push({ subject, name: event.name });
  }
}

@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService(SERVICE),
    HealthModule.forService(DiscoveryHealthV1),
  ],
  providers: [ProbeConsumer],
})
class ProbeModule {}

function presence(name: string): AgentPresenceChangedV1Event {
  return { agentId: randomUUID(), name, status: 'offline', lastSeenAt: new Date().toISOString() };
}

describe('stream consumers that cannot stall (real nats-server)', () => {
  let nats: EmbeddedNats;
  let service: INestMicroservice;
  let external: NatsConnection;
  let manager: JetStreamManager;
  const previousEnvironment = { ...process.env };

  async function publish(subject: string, body: unknown): Promise<number> {
    const ack = await jetstream(external).publish(subject, typeof body === 'string' ? body : JSON.stringify(body));
    return ack.seq;
  }

  async function deadLetters(afterId = 0, limit = 500): Promise<ListDeadLettersV1Response> {
    const reply = await rawRequest(external, DiscoveryListDeadLettersV1.subject, { afterId, limit });
    if (!reply.ok) throw new Error(`listing dead letters failed: ${JSON.stringify(reply)}`);
    return reply.data as ListDeadLettersV1Response;
  }

  /** Waits until the event published at `sequence` is a dead letter. */
  async function deadLetterOf(sequence: number): Promise<DeadLetterV1> {
    return expectEventually(async () => {
      const { deadLetters: letters } = await deadLetters();
      const letter = letters.find((candidate) => candidate.streamSequence === sequence);
      if (!letter) throw new Error(`event ${sequence} is not a dead letter (yet)`);
      return letter;
    });
  }

  async function health(): Promise<HealthV1Response> {
    const reply = await rawRequest(external, DiscoveryHealthV1.subject, {});
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.data as HealthV1Response;
  }

  beforeAll(async () => {
    nats = await startNatsServer();
    Object.assign(process.env, {
      NATS_URL: nats.url,
      EVENT_RETRY_BACKOFF_MS: BACKOFF_MS.join(','),
      EVENT_MAX_DELIVERIES: String(MAX_DELIVERIES),
      EVENT_STUCK_AFTER_MS: '1000',
    });
    external = await connectRaw(nats.url);
    manager = await jetstreamManager(external);

    // What an older release left behind: the stream, a stream-wide consumer that has acknowledged two events, and
    // a consumer of this release's name with none of the delivery settings.
    await manager.streams.add({ name: REGISTRY_EVENTS_STREAM, subjects: ['ioa.registry.agent.>'] });
    await publish(AgentCameOnlineV1.subject, presence('before-upgrade-1'));
    await publish(AgentCameOnlineV1.subject, presence('before-upgrade-2'));
    await manager.consumers.add(REGISTRY_EVENTS_STREAM, {
      durable_name: `${SERVICE}-${REGISTRY_EVENTS_STREAM}`,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    const legacy = await jetstream(external).consumers.get(
      REGISTRY_EVENTS_STREAM,
      `${SERVICE}-${REGISTRY_EVENTS_STREAM}`,
    );
    for (let index = 0; index < 2; index++) {
      const message = await legacy.next({ expires: 2000 });
      await message?.ackAck();
    }
    await manager.consumers.add(REGISTRY_EVENTS_STREAM, {
      durable_name: CAME_ONLINE_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: 3,
      filter_subject: AgentCameOnlineV1.subject,
    });
    await publish(AgentCameOnlineV1.subject, presence('after-upgrade'));

    service = await createService(ProbeModule, { name: SERVICE, logger: false });
  });

  afterAll(async () => {
    await external?.close();
    await service?.close();
    await nats?.stop();
    process.env = previousEnvironment;
  });

  it('brings an existing consumer up to date at boot and replaces the stream-wide one from its ack floor', async () => {
    const info = await manager.consumers.info(REGISTRY_EVENTS_STREAM, CAME_ONLINE_CONSUMER);
    expect(info.config).toMatchObject({
      filter_subject: AgentCameOnlineV1.subject,
      max_deliver: MAX_DELIVERIES,
      backoff: BACKOFF_MS.map((delay) => delay * 1_000_000),
      // JetStream's ack wait is the first backoff step; asking for anything else made every boot "update" it.
      ack_wait: BACKOFF_MS[0] * 1_000_000,
    });
    const consumers: string[] = [];
    for await (const consumer of manager.consumers.list(REGISTRY_EVENTS_STREAM)) consumers.push(consumer.name);
    expect(consumers.sort()).toEqual([CAME_ONLINE_CONSUMER, WENT_OFFLINE_CONSUMER]);
    await expectEventually(() => seen.handled.some((event) => event.name === 'after-upgrade'));
    // The two events the old consumer had acknowledged are not handled a second time.
    expect(seen.handled.map((event) => event.name)).not.toContain('before-upgrade-1');
    expect(seen.handled.map((event) => event.name)).not.toContain('before-upgrade-2');
  });

  it('retries a poison event with backoff, dead-letters it with its error and consumer, and moves on', async () => {
    seen.poison.add('poison-1');
    const sequence = await publish(AgentWentOfflineV1.subject, presence('poison-1'));
    await publish(AgentWentOfflineV1.subject, presence('after-poison-1'));

    await expectEventually(() => seen.handled.some((event) => event.name === 'after-poison-1'));
    const letter = await deadLetterOf(sequence);
    expect(letter).toMatchObject({
      service: SERVICE,
      consumer: WENT_OFFLINE_CONSUMER,
      subject: AgentWentOfflineV1.subject,
      deliveries: MAX_DELIVERIES,
      reason: 'handler_failed',
      error: 'cannot index poison-1',
      payloadTruncated: false,
    } satisfies Partial<DeadLetterV1>);
    expect(JSON.parse(letter.payload)).toMatchObject({ name: 'poison-1' });

    const attempts = seen.deliveries.get('poison-1') ?? [];
    expect(attempts).toHaveLength(MAX_DELIVERIES);
    // Each retry waited at least its backoff step (a little slack for timer granularity).
    expect(attempts[1] - attempts[0]).toBeGreaterThanOrEqual(BACKOFF_MS[0] - 20);
    expect(attempts[2] - attempts[1]).toBeGreaterThanOrEqual(BACKOFF_MS[1] - 20);

    const info = await manager.consumers.info(REGISTRY_EVENTS_STREAM, WENT_OFFLINE_CONSUMER);
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it('delivers an event once to a handler that runs far past the ack wait (the first backoff step)', async () => {
    seen.slowMs.set('slow', BACKOFF_MS[0] * 8);
    await publish(AgentWentOfflineV1.subject, presence('slow'));
    await expectEventually(() => seen.handled.some((event) => event.name === 'slow'));
    // An event behind it: a duplicate delivery of "slow" would have been handled before this one.
    await publish(AgentWentOfflineV1.subject, presence('after-slow'));
    await expectEventually(() => seen.handled.some((event) => event.name === 'after-slow'));
    // The in-progress heartbeats kept the server from delivering it again while the handler ran.
    expect(seen.deliveries.get('slow')).toHaveLength(1);
  });

  it('dead-letters a payload that fails validation at once, without calling the handler', async () => {
    const sequence = await publish(AgentWentOfflineV1.subject, { agentId: 'not-a-uuid', name: 'invalid' });
    const letter = await deadLetterOf(sequence);
    expect(letter).toMatchObject({ reason: 'invalid_payload', deliveries: 1, consumer: WENT_OFFLINE_CONSUMER });
    expect(letter.error).toMatch(/agentId/);
    expect(seen.deliveries.has('invalid')).toBe(false);
  });

  it('gives each consumer only its own subject', async () => {
    const before = await manager.consumers.info(REGISTRY_EVENTS_STREAM, CAME_ONLINE_CONSUMER);
    await publish(AgentWentOfflineV1.subject, presence('offline-only'));
    await publish(AgentCameOnlineV1.subject, presence('online-only'));
    await expectEventually(() => seen.handled.some((event) => event.name === 'online-only'));
    await expectEventually(() => seen.handled.some((event) => event.name === 'offline-only'));
    const after = await manager.consumers.info(REGISTRY_EVENTS_STREAM, CAME_ONLINE_CONSUMER);
    // One event more was delivered to (and acknowledged by) the came-online consumer, not two.
    expect(after.delivered.consumer_seq - before.delivered.consumer_seq).toBe(1);
    expect(seen.handled.find((event) => event.name === 'offline-only')?.subject).toBe(AgentWentOfflineV1.subject);
    expect(seen.handled.find((event) => event.name === 'online-only')?.subject).toBe(AgentCameOnlineV1.subject);
  });

  it('reports per-consumer counts in health, and is degraded while a consumer is stuck', async () => {
    const ok = await health();
    expect(ok.status).toBe('ok');
    expect(ok.consumers?.map((consumer) => consumer.name).sort()).toEqual([
      CAME_ONLINE_CONSUMER,
      WENT_OFFLINE_CONSUMER,
    ]);
    expect(
      ok.consumers?.find((consumer) => consumer.name === WENT_OFFLINE_CONSUMER)?.redelivered,
    ).toBeGreaterThanOrEqual(0);

    let open!: () => void;
    seen.gate = new Promise((resolve) => (open = resolve));
    seen.hangOn = 'hang';
    await publish(AgentCameOnlineV1.subject, presence('hang'));
    await expectEventually(() => seen.deliveries.has('hang'));
    // More events than the consumer pulls ahead: they wait behind the handler that hangs.
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => publish(AgentCameOnlineV1.subject, presence(`queued-${index}`))),
    );

    const stuck = await expectEventually(async () => {
      const answer = await health();
      if (answer.status !== 'degraded') throw new Error('health is still ok');
      return answer;
    });
    const consumer = stuck.consumers?.find((candidate) => candidate.name === CAME_ONLINE_CONSUMER);
    expect(consumer).toMatchObject({ stuck: true });
    expect(consumer?.pending).toBeGreaterThan(0);
    expect(consumer?.stuckReason).toMatch(/one event has been in its handler for \d+ s/);
    expect(stuck.consumers?.find((candidate) => candidate.name === WENT_OFFLINE_CONSUMER)?.stuck).toBe(false);

    open();
    await expectEventually(() => seen.handled.some((event) => event.name === 'queued-39'));

    await expectEventually(async () => (await health()).status === 'ok');
  });

  it('replays a dead letter on its original subject and removes it; a second replay is NOT_FOUND', async () => {
    seen.poison.add('heal-me');
    const sequence = await publish(AgentWentOfflineV1.subject, presence('heal-me'));
    const letter = await deadLetterOf(sequence);
    seen.poison.delete('heal-me'); // the cause is fixed

    const reply = await rawRequest(external, DiscoveryReplayDeadLetterV1.subject, { id: letter.id });
    expect(reply).toMatchObject({
      ok: true,
      data: { id: letter.id, subject: AgentWentOfflineV1.subject, messageId: `dead-letter-replay:${letter.id}` },
    });
    await expectEventually(() => seen.handled.some((event) => event.name === 'heal-me'));
    expect((await deadLetters()).deadLetters.map((candidate) => candidate.id)).not.toContain(letter.id);

    const again = await rawRequest(external, DiscoveryReplayDeadLetterV1.subject, { id: letter.id });
    expect(again).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const invalid = await rawRequest(external, DiscoveryReplayDeadLetterV1.subject, { id: 0 });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it('is not stalled by 1,000 poison events: the event after them is handled and each is a dead letter', async () => {
    const { total: before } = await deadLetters();
    const names = Array.from({ length: 1000 }, (_, index) => `flood-${index}`);
    names.forEach((name) => seen.poison.add(name));
    const startedAt = Date.now();
    await Promise.all(names.map((name) => publish(AgentWentOfflineV1.subject, presence(name))));
    await publish(AgentWentOfflineV1.subject, presence('after-flood'));

    await expectEventually(() => seen.handled.some((event) => event.name === 'after-flood'), { timeoutMs: 60_000 });
    const handledAfterMs = Date.now() - startedAt;
    await expectEventually(async () => (await deadLetters()).total === before + 1000, { timeoutMs: 120_000 });
    const deadLetteredAfterMs = Date.now() - startedAt;
    const consumer = (await health()).consumers?.find((candidate) => candidate.name === WENT_OFFLINE_CONSUMER);
    expect(consumer).toMatchObject({ pending: 0, ackPending: 0, stuck: false, deadLetters: before + 1000 });
    expect(names.every((name) => seen.deliveries.get(name)?.length === MAX_DELIVERIES)).toBe(true);
    console.log(
      `1,000 poison events: the next event was handled after ${handledAfterMs} ms, ` +
        `all were dead letters after ${deadLetteredAfterMs} ms (${MAX_DELIVERIES} deliveries each)`,
    );
  }, 180_000);

  it('lists dead letters in pages, oldest first', async () => {
    const all = await deadLetters();
    const firstPage = await deadLetters(0, 2);
    expect(firstPage.deadLetters.map((letter) => letter.id)).toEqual(
      all.deadLetters.slice(0, 2).map((letter) => letter.id),
    );
    const nextPage = await deadLetters(firstPage.deadLetters[1].id, 2);
    expect(nextPage.deadLetters.map((letter) => letter.id)).toEqual(
      all.deadLetters.slice(2, 4).map((letter) => letter.id),
    );
    expect(firstPage.total).toBe(all.total);
    expect((await deadLetters(2_000_000_000, 10)).deadLetters).toEqual([]);
    // Each listing reads through a consumer of its own and deletes it: nothing is left behind on the server.
    const readers: string[] = [];
    for await (const consumer of manager.consumers.list(DEAD_LETTERS_STREAM)) readers.push(consumer.name);
    expect(readers).toEqual([]);
  });
});

describe('a consumer whose retries fill its ack-pending limit (real nats-server)', () => {
  let nats: EmbeddedNats;
  let connection: NatsConnection;
  let bus: EventBus;

  beforeAll(async () => {
    nats = await startNatsServer();
    connection = await connectRaw(nats.url);
    // Long retry delays and a small limit: the poison events sit in their backoff and hold every slot.
    bus = new EventBus(connection, {
      events: { backoffMs: [60_000], maxDeliveries: 2, maxAckPending: 5, stuckAfterMs: 60_000 },
    });
  });

  afterAll(async () => {
    await bus?.onApplicationShutdown();
    await connection?.close();
    await nats?.stop();
  });

  it('reports the consumer stuck while the server can deliver nothing more', async () => {
    const handled: string[] = [];
    await bus.subscribe({
      durable: 'registry',
      handlers: [
        on(AgentWentOfflineV1, (event) => {
          if (event.name.startsWith('poison')) return Promise.reject(new Error('cannot handle it'));
          handled.push(event.name);
          return Promise.resolve();
        }),
      ],
    });
    for (let index = 0; index < 5; index++) await bus.publish(AgentWentOfflineV1, presence(`poison-${index}`));
    await bus.publish(AgentWentOfflineV1, presence('waiting'));

    const [consumer] = await expectEventually(async () => {
      const consumers = await bus.consumerHealth();
      if (!consumers[0]?.stuck) throw new Error(`not stuck yet: ${JSON.stringify(consumers)}`);
      return consumers;
    });
    expect(consumer).toMatchObject({ name: WENT_OFFLINE_CONSUMER.replace('discovery', 'registry'), ackPending: 5 });
    expect(consumer.maxAckPending).toBe(5);
    expect(consumer.pending).toBe(1);
    expect(consumer.stuckReason).toMatch(/ack-pending is at its limit \(5 of 5\)/);
    expect(handled).toEqual([]);
  });
});
