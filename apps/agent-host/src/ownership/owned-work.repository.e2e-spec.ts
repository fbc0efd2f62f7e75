import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { prepareSchema } from '@ioa/database';
import { startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { CreateOwnedWork1795600000000 } from '../migrations/1795600000000-create-owned-work.js';
import { OwnedWorkEntity } from './owned-work.entity.js';
import { OwnedWorkRepository } from './owned-work.repository.js';

const LEASE_MS = 60_000;
/** A lease that ran out a second ago: the replica that held it is gone. */
const EXPIRED = -1000;
const claimOptions = { leaseMs: LEASE_MS, limit: 100, includeOwn: false };

/** The lease rules of the ownership table, on a real database (PGlite, or native PostgreSQL in CI). */
describe('OwnedWorkRepository (leases on a real database)', () => {
  let infrastructure: TestInfrastructure;
  let dataSource: DataSource;
  let repository: OwnedWorkRepository;

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    await prepareSchema(infrastructure.databaseUrl, 'agent_host');
    dataSource = new DataSource({
      type: 'postgres',
      url: infrastructure.databaseUrl,
      schema: 'agent_host',
      entities: [OwnedWorkEntity],
      migrations: [CreateOwnedWork1795600000000],
    });
    await dataSource.initialize();
    await dataSource.runMigrations();
    repository = new OwnedWorkRepository(dataSource);
  }, 120_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await infrastructure?.stop();
  });

  /** A piece of work in its own scope, so each scenario sees only its rows. */
  function newWork(scope: string, payload: unknown = { n: 1 }) {
    return { kind: 'task' as const, workKey: randomUUID(), scope, payload };
  }

  it('owns a piece of work once: a redelivery or a retried dispatch finds it owned', async () => {
    const work = newWork(randomUUID());
    expect(await repository.own(work, 'replica-a', LEASE_MS)).toBe(true);
    expect(await repository.own(work, 'replica-b', LEASE_MS)).toBe(false);
    expect(await repository.claim('replica-b', 'task', [work.scope], claimOptions)).toEqual([]);
  });

  it('a live lease is left alone; an expired one is taken over with the payload, counting the claim', async () => {
    const work = newWork(randomUUID(), { taskId: 't-1', brief: { abstract: 'x' } });
    await repository.own(work, 'replica-a', LEASE_MS);
    await repository.renew('replica-a', LEASE_MS);
    expect(await repository.claim('replica-b', 'task', [work.scope], claimOptions)).toEqual([]);
    await repository.expire('task', work.workKey);
    expect(await repository.claim('replica-b', 'task', [work.scope], claimOptions)).toEqual([
      { kind: 'task', workKey: work.workKey, scope: work.scope, payload: work.payload, claims: 2 },
    ]);
    // Taken over means held: the next sweep of another replica finds nothing.
    expect(await repository.claim('replica-c', 'task', [work.scope], claimOptions)).toEqual([]);
  });

  it('right after boot a replica takes back its own work at once, but never another live replica’s', async () => {
    const scope = randomUUID();
    const mine = newWork(scope);
    const theirs = newWork(scope);
    await repository.own(mine, 'replica-a', LEASE_MS);
    await repository.own(theirs, 'replica-b', LEASE_MS);
    const claimed = await repository.claim('replica-a', 'task', [scope], { ...claimOptions, includeOwn: true });
    expect(claimed.map((work) => work.workKey)).toEqual([mine.workKey]);
  });

  it('only takes work of the kind and the scopes asked for', async () => {
    const scope = randomUUID();
    const task = newWork(scope);
    const turn = { ...newWork(scope), kind: 'turn' as const };
    const elsewhere = newWork(randomUUID());
    for (const work of [task, turn, elsewhere]) await repository.own(work, 'gone', EXPIRED);
    const claimed = await repository.claim('replica-a', 'task', [scope], claimOptions);
    expect(claimed.map((work) => work.workKey)).toEqual([task.workKey]);
  });

  it('replicas sweeping at the same moment share the expired work without taking anything twice', async () => {
    const scope = randomUUID();
    const works = Array.from({ length: 30 }, () => newWork(scope));
    for (const work of works) await repository.own(work, 'gone', EXPIRED);
    const sweeps = await Promise.all(
      ['replica-a', 'replica-b', 'replica-c'].map((owner) =>
        repository.claim(owner, 'task', [scope], { ...claimOptions, limit: 12 }),
      ),
    );
    const taken = sweeps.flat().map((work) => work.workKey);
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.sort()).toEqual(works.map((work) => work.workKey).sort());
  });

  it('a graceful stop hands everything of a replica over at once; a release ends the work for good', async () => {
    const scope = randomUUID();
    const [first, second] = [newWork(scope), newWork(scope)];
    await repository.own(first, 'leaving', LEASE_MS);
    await repository.own(second, 'leaving', LEASE_MS);
    await repository.release('task', first.workKey);
    await repository.expireAllOf('leaving');
    const claimed = await repository.claim('staying', 'task', [scope], claimOptions);
    expect(claimed.map((work) => work.workKey)).toEqual([second.workKey]);
  });
});
