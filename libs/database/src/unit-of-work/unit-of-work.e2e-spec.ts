import { randomUUID } from 'node:crypto';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { DataSource } from 'typeorm';
import { ALL_CONTRACTS, AgentDeregisteredV1, REGISTRY_EVENTS_STREAM } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { EventBus, MessagingModule } from '@ioa/messaging';
import { connectRaw, expectEventually, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { DatabaseModule } from '../database.module.js';
import { CreateOutbox1700000000000 } from '../testing/create-outbox.test-migration.js';
import { OutboxEventEntity } from '../outbox/outbox-event.entity.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { OutboxRelay } from '../outbox/outbox.relay.js';
import { Transactions } from './unit-of-work.js';

/** Short, so that the test of the bound does not wait long. */
const FLUSH_WAIT_MS = 300;

@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService('unit-of-work-test'),
    DatabaseModule.forService({
      schema: 'unit_of_work_test',
      entities: [OutboxEventEntity],
      migrations: [CreateOutbox1700000000000],
    }),
    OutboxModule.forService({ retryMs: 100, flushWaitMs: FLUSH_WAIT_MS }),
  ],
})
class UnitOfWorkTestModule {}

/** A registry event carrying the test's run id as its name, so each test finds its own in the stream. */
function deregistered(run: string, revision = 1) {
  return { agentId: randomUUID(), name: run, revision };
}

describe('a unit of work (real NATS, real database)', () => {
  let infrastructure: TestInfrastructure;
  let app: INestApplicationContext;
  let transactions: Transactions;
  let external: NatsConnection;
  let streams: JetStreamManager;

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment();
    app = await NestFactory.createApplicationContext(UnitOfWorkTestModule, { logger: false });
    transactions = app.get(Transactions);
    external = await connectRaw(infrastructure.natsUrl);
    streams = await jetstreamManager(external);
    await app.get(EventBus).ensureStreams();
  });

  afterAll(async () => {
    await external?.close();
    await app?.close();
    await infrastructure?.stop();
  });

  const pending = () => app.get(DataSource).getRepository(OutboxEventEntity).count();

  /** The newest deregistration in the stream, as JetStream stored it. */
  async function lastStored(): Promise<Record<string, unknown> | undefined> {
    const message = await streams.streams.getMessage(REGISTRY_EVENTS_STREAM, {
      last_by_subj: AgentDeregisteredV1.subject,
    });
    return message?.json();
  }

  it('resolves only once the events it wrote are published, then runs its follow-ups in order', async () => {
    const run = `published-${randomUUID()}`;
    const seenByFollowUps: Array<Record<string, unknown> | undefined> = [];
    const order: string[] = [];

    const result = await transactions.run(async (unit) => {
      await unit.publish(AgentDeregisteredV1, deregistered(run), { messageId: `${run}:1` });
      unit.afterCommit(async () => {
        order.push('first');
        seenByFollowUps.push(await lastStored());
      });
      unit.afterCommit(() => order.push('second'));
      return 'the use case’s result';
    });

    expect(result).toBe('the use case’s result');
    // No polling: JetStream had acknowledged the event before `run` resolved, and it left the outbox.
    expect(await lastStored()).toMatchObject({ name: run });
    expect(await pending()).toBe(0);
    expect(order).toEqual(['first', 'second']);
    expect(seenByFollowUps[0]).toMatchObject({ name: run });
  });

  it('writes nothing and runs no follow-up when the work throws', async () => {
    const run = `rolled-back-${randomUUID()}`;
    let followUps = 0;

    await expect(
      transactions.run(async (unit) => {
        await unit.publish(AgentDeregisteredV1, deregistered(run), { messageId: `${run}:1` });
        unit.afterCommit(() => (followUps += 1));
        throw new Error('the change broke a rule after writing its event');
      }),
    ).rejects.toThrow(/broke a rule/);

    expect(await pending()).toBe(0);
    expect(followUps).toBe(0);
    expect(await lastStored()).not.toMatchObject({ name: run });
  });

  it('runs every follow-up even when one fails, and still resolves with the result', async () => {
    const ran: string[] = [];

    const result = await transactions.run((unit) => {
      unit.afterCommit(() => {
        throw new Error('the other service did not answer');
      });
      unit.afterCommit(() => ran.push('after the failed one'));
      return Promise.resolve(42);
    });

    expect(result).toBe(42);
    expect(ran).toEqual(['after the failed one']);
  });

  it('does not wait past its bound when the broker cannot take the events; the relay publishes them later', async () => {
    const run = `outage-${randomUUID()}`;
    const registrySubjects = ALL_CONTRACTS.filter(
      (contract) => contract.kind === 'event' && contract.stream === REGISTRY_EVENTS_STREAM,
    ).map((contract) => contract.subject);
    // JetStream is "down" for this subject: no stream stores it and a silent subscriber swallows the publish, so
    // the publish waits for its acknowledgement until JetStream's own timeout — far longer than the bound.
    await streams.streams.delete(REGISTRY_EVENTS_STREAM);
    const silent = external.subscribe(AgentDeregisteredV1.subject, { callback: () => undefined });
    await external.flush();
    // Watches (does not replace) the relay's flush, to see whether it was still under way when `run` moved on.
    const relay = app.get(OutboxRelay);
    const flush = relay.flush.bind(relay);
    let flushEnded = false;
    relay.flush = () => flush().finally(() => (flushEnded = true));
    try {
      let flushEndedBeforeFollowUp: boolean | undefined;
      await transactions.run(async (unit) => {
        await unit.publish(AgentDeregisteredV1, deregistered(run), { messageId: `${run}:1` });
        unit.afterCommit(() => (flushEndedBeforeFollowUp = flushEnded));
      });

      // `run` came back, and its follow-up ran, while the publish was still waiting for JetStream.
      expect(flushEndedBeforeFollowUp).toBe(false);
      expect(flushEnded).toBe(false);
      expect(await pending()).toBe(1);
    } finally {
      relay.flush = flush;
      silent.unsubscribe();
    }

    await streams.streams.add({ name: REGISTRY_EVENTS_STREAM, subjects: registrySubjects });
    // No one flushes: the relay's timer retries the event.
    await expectEventually(async () => (await pending()) === 0, { message: 'the relay never retried the event' });
    expect(await lastStored()).toMatchObject({ name: run });
  });
});
