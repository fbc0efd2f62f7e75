import { randomUUID } from 'node:crypto';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { DataSource } from 'typeorm';
import {
  ALL_CONTRACTS,
  AgentDeregisteredV1,
  AgentWentOfflineV1,
  REGISTRY_EVENTS_STREAM,
  subjectFor,
  TaskCanceledV1,
} from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { EventBus, MessagingModule } from '@ioa/messaging';
import { connectRaw, expectEventually, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { DatabaseModule } from '../database.module.js';
import { CreateOutbox1700000000000 } from '../testing/create-outbox.test-migration.js';
import { OutboxEventEntity } from './outbox-event.entity.js';
import { outboxMessage, type OutboxMessage } from './outbox-message.js';
import { OutboxModule } from './outbox.module.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';

/** A service that only writes events: small batches, so that ordering across batches is exercised too. */
@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService('outbox-test'),
    DatabaseModule.forService({
      schema: 'outbox_test',
      entities: [OutboxEventEntity],
      migrations: [CreateOutbox1700000000000],
    }),
    OutboxModule.forService({ retryMs: 100, batchSize: 8 }),
  ],
})
class OutboxTestModule {}

/** One replica of that service. */
class Replica {
  constructor(readonly app: INestApplicationContext) {}

  get relay(): OutboxRelay {
    return this.app.get(OutboxRelay);
  }

  /** Writes `messages` in one transaction (rolled back when `fail` is set), without flushing. */
  commit(messages: OutboxMessage[], fail = false): Promise<void> {
    return this.app.get(DataSource).transaction(async (manager) => {
      await this.app.get(OutboxRepository).enqueue(manager, messages);
      if (fail) throw new Error('the change failed after writing its events');
    });
  }

  pending(): Promise<number> {
    return this.app.get(DataSource).getRepository(OutboxEventEntity).count();
  }
}

async function startReplica(): Promise<Replica> {
  return new Replica(await NestFactory.createApplicationContext(OutboxTestModule, { logger: false }));
}

/** A plain NATS subscriber: what an external agent sees of the events, in arrival order. */
class Observer {
  readonly seen: Array<{ subject: string; payload: Record<string, unknown> }> = [];
  private readonly subscriptions: Subscription[] = [];

  async start(connection: NatsConnection, subjects: string[]): Promise<void> {
    for (const subject of subjects) {
      const subscription = connection.subscribe(subject, {
        callback: (error, message) => {
          if (!error) this.seen.push({ subject: message.subject, payload: message.json() });
        },
      });
      this.subscriptions.push(subscription);
    }
    await connection.flush();
  }

  /** The tags of what one run of a test published, in arrival order. */
  tags(run: string): string[] {
    return this.seen.map(read).flatMap((event) => (event.run === run ? [event.tag] : []));
  }

  stop(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}

/*
 * Events carry their test run and a tag, so that each test reads only its own: a deregistration (JetStream) carries
 * them as `name` and `revision`; a cancellation (core NATS, addressed) as the JSON in its `reason`.
 */
function stored(run: string, tag: number): OutboxMessage {
  return outboxMessage(AgentDeregisteredV1, { agentId: randomUUID(), name: run, revision: tag }, `${run}:${tag}`);
}

function addressed(run: string, tag: number, recipient = 'agent-1'): OutboxMessage {
  return outboxMessage(
    TaskCanceledV1,
    { taskId: randomUUID(), reason: JSON.stringify({ run, tag }) },
    `${run}:${tag}`,
    { subject: subjectFor(TaskCanceledV1, recipient) },
  );
}

/** The run and tag an observed event carries (another test's cancellation carries no JSON: no run). */
function read(event: { subject: string; payload: Record<string, unknown> }): { run?: string; tag: string } {
  if (event.subject === AgentDeregisteredV1.subject) {
    return { run: String(event.payload.name), tag: `stored:${String(event.payload.revision)}` };
  }
  const { run, tag } = JSON.parse(String(event.payload.reason)) as { run: string; tag: number };
  return { run, tag: `addressed:${tag}` };
}

describe('the transactional outbox (real NATS, real database)', () => {
  let infrastructure: TestInfrastructure;
  let replica: Replica;
  let external: NatsConnection;
  let streams: JetStreamManager;
  const observer = new Observer();

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment();
    replica = await startReplica();
    external = await connectRaw(infrastructure.natsUrl);
    streams = await jetstreamManager(external);
    await observer.start(external, [AgentDeregisteredV1.subject, TaskCanceledV1.subject]);
    await replica.app.get(EventBus).ensureStreams();
  });

  afterAll(async () => {
    observer.stop();
    await external?.close();
    await replica?.app.close();
    await infrastructure?.stop();
  });

  /** Commits and flushes one more event and waits for it: anything published before it has arrived by then. */
  async function settle(run: string): Promise<void> {
    await replica.commit([stored(run, 999)]);
    await replica.relay.flush();
    await expectEventually(() => observer.tags(run).includes('stored:999'), { message: 'the marker never arrived' });
  }

  it('publishes a committed event once, when flushed after commit, and leaves the outbox empty', async () => {
    const run = `commit-${randomUUID()}`;
    await replica.commit([stored(run, 1)]);
    await replica.relay.flush();

    expect(await replica.pending()).toBe(0);
    await settle(run);
    expect(observer.tags(run)).toEqual(['stored:1', 'stored:999']);
  });

  it('publishes nothing of a transaction that rolls back', async () => {
    const run = `rollback-${randomUUID()}`;
    await expect(replica.commit([stored(run, 1), addressed(run, 2)], true)).rejects.toThrow(/change failed/);
    await replica.relay.flush();

    await settle(run);
    expect(observer.tags(run)).toEqual(['stored:999']);
    expect(await replica.pending()).toBe(0);
  });

  it('keeps the order of commits across batches, JetStream and core events alike, on their own subjects', async () => {
    const run = `order-${randomUUID()}`;
    const expected: string[] = [];
    for (let tag = 1; tag <= 30; tag += 3) {
      // One transaction with several events, the next with one: id order is commit order either way.
      await replica.commit([stored(run, tag), addressed(run, tag + 1), addressed(run, tag + 2, 'agent-2')]);
      expected.push(`stored:${tag}`, `addressed:${tag + 1}`, `addressed:${tag + 2}`);
    }
    await replica.relay.flush();

    await settle(run);
    expect(observer.tags(run)).toEqual([...expected, 'stored:999']);
    const recipients = observer.seen
      .filter((event) => event.subject !== AgentDeregisteredV1.subject && read(event).run === run)
      .map((event) => event.subject);
    expect(new Set(recipients)).toEqual(
      new Set([subjectFor(TaskCanceledV1, 'agent-1'), subjectFor(TaskCanceledV1, 'agent-2')]),
    );
  });

  it('keeps an event whose publish fails and retries it later on its timer; what came after waits for it', async () => {
    const run = `failure-${randomUUID()}`;
    const registrySubjects = ALL_CONTRACTS.filter(
      (contract) => contract.kind === 'event' && contract.stream === REGISTRY_EVENTS_STREAM,
    ).map((contract) => contract.subject);
    // The stream is gone (an outage of JetStream): its publishes fail. Nobody listens on `went-offline`, so the
    // publish fails at once ("no responders") instead of timing out.
    await streams.streams.delete(REGISTRY_EVENTS_STREAM);
    const lastSeenAt = new Date().toISOString();
    await replica.commit([
      outboxMessage(
        AgentWentOfflineV1,
        { agentId: randomUUID(), name: run, status: 'offline', lastSeenAt },
        `${run}:offline`,
      ),
      addressed(run, 2),
    ]);
    await replica.relay.flush();

    expect(await replica.pending()).toBe(2);
    expect(observer.tags(run)).toEqual([]);

    await streams.streams.add({ name: REGISTRY_EVENTS_STREAM, subjects: registrySubjects });
    // No flush: the relay's timer publishes both, the failed one first.
    await expectEventually(async () => (await replica.pending()) === 0, { message: 'the outbox was not retried' });
    await expectEventually(() => observer.tags(run).includes('addressed:2'));
    const offline = await streams.streams.getMessage(REGISTRY_EVENTS_STREAM, {
      last_by_subj: AgentWentOfflineV1.subject,
    });
    expect(offline?.json()).toMatchObject({ name: run, status: 'offline' });
    expect((await streams.streams.info(REGISTRY_EVENTS_STREAM)).state.messages).toBe(1);
  });

  it('with two replicas flushing at once, publishes each event once and in order', async () => {
    const run = `replicas-${randomUUID()}`;
    const second = await startReplica();
    try {
      const replicas = [replica, second];
      const flushes: Array<Promise<void>> = [];
      for (let tag = 1; tag <= 60; tag++) {
        const writer = replicas[tag % 2];
        await writer.commit([stored(run, tag)]);
        // As the services do: each flushes after its own commit, and flushes of both replicas overlap.
        flushes.push(writer.relay.flush());
      }
      await Promise.all(flushes);

      await settle(run);
      const expected = Array.from({ length: 60 }, (_, index) => `stored:${index + 1}`);
      expect(observer.tags(run)).toEqual([...expected, 'stored:999']);
      expect(await replica.pending()).toBe(0);
    } finally {
      await second.app.close();
    }
  });
});
