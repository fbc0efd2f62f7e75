import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import pg from 'pg';
import { DataSource } from 'typeorm';
import {
  AssignTaskV1,
  subjectFor,
  TurnGrantedV1,
  type ReportTaskV1Request,
  type TaskAssignmentV1Request,
} from '@ioa/contracts';
import { createService, NATS_CONNECTION } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { AgentHostModule } from '../agent-host.module.js';
import {
  startFakeChat,
  startFakeRegistry,
  startFakeScheduler,
  type FakeChat,
  type FakeRegistry,
  type FakeScheduler,
} from '../testing/platform-fakes.js';
import { newTaskAssignment, newTurnGrant } from '../testing/work-factories.js';

const LEASE_MS = 1500;

/**
 * agent-host dies mid-work and nothing is lost: a task it acknowledged and a turn it was granted are owned in its
 * table before the acknowledgement, and are finished after a restart or by a replica, long before their deadlines.
 * "Dies" is a crash, not a shutdown: its NATS connection and its database pool are cut without any of its shutdown
 * hooks, so it can neither report, propose nor let go of its rows, exactly like a process killed with SIGKILL (the
 * fault suite in `test/` does the same with real processes).
 */
describe('agent-host crash recovery (real NATS and database)', () => {
  let infrastructure: TestInfrastructure;
  let external: NatsConnection;
  let registry: FakeRegistry;
  let scheduler: FakeScheduler;
  let chat: FakeChat;
  /** The database as an operator sees it, independent of any replica. */
  let database: pg.Client;
  const services: INestMicroservice[] = [];
  const live = new Set<INestMicroservice>();

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      AGENT_HOST_HEARTBEAT_MS: '200',
      AGENT_HOST_AGENTS: 'code-runner',
      AGENT_HOST_WORK_LEASE_MS: String(LEASE_MS),
      AGENT_HOST_INSTANCE_ID: 'replica',
    });
    external = await connectRaw(infrastructure.natsUrl);
    registry = startFakeRegistry(external);
    scheduler = startFakeScheduler(external);
    chat = startFakeChat(external);
    await external.flush();
    database = new pg.Client({ connectionString: infrastructure.databaseUrl });
    await database.connect();
  }, 180_000);

  beforeEach(async () => {
    // Each scenario starts with no replica up, so it knows which replica holds what.
    for (const service of live) await crash(service);
  });

  afterAll(async () => {
    for (const service of services) await service.close().catch(() => undefined);
    await database?.end();
    await external?.close();
    await infrastructure?.stop();
  });

  async function bootReplica(instanceId: string, leaseMs = LEASE_MS): Promise<INestMicroservice> {
    process.env.AGENT_HOST_INSTANCE_ID = instanceId;
    process.env.AGENT_HOST_WORK_LEASE_MS = String(leaseMs);
    const service = await createService(AgentHostModule, { name: 'agent-host', logger: false });
    services.push(service);
    live.add(service);
    await expectEventually(() => registry.idOf('code-runner'), { message: 'code-runner registers' });
    return service;
  }

  /** Cuts the replica off the way SIGKILL would: no drain, no shutdown hook, no last write. */
  async function crash(service: INestMicroservice): Promise<void> {
    live.delete(service);
    await service.get<NatsConnection>(NATS_CONNECTION).close();
    await service.get(DataSource).destroy();
  }

  async function ownedRows(): Promise<Array<{ kind: string; work_key: string }>> {
    const result = await database.query<{ kind: string; work_key: string }>(
      `SELECT "kind", "work_key" FROM "agent_host"."owned_work"`,
    );
    return result.rows;
  }

  const newAssignment = (code: string): TaskAssignmentV1Request =>
    newTaskAssignment(registry.idOf('code-runner') as string, { description: `Run \`${code}\`` });

  const finalReports = (taskId: string): ReportTaskV1Request[] =>
    scheduler.reportsOf(taskId).filter((report) => report.state !== 'working');

  it('a task running when its replica crashed is run again and reported once, right after the restart', async () => {
    const first = await bootReplica('replica-a');
    // Slow enough to be caught mid-run, and its result only this code can produce.
    const assignment = newAssignment(
      'new Promise((resolve) => setTimeout(() => resolve(["sum", 20 + 22].join(" ")), 2000))',
    );
    const acknowledged = await rawRequest(external, subjectFor(AssignTaskV1, assignment.agentId), assignment);
    expect(acknowledged).toEqual({ ok: true, data: { accepted: true } });
    // Acknowledged means owned: the row was committed before the reply went out.
    expect(await ownedRows()).toContainEqual({ kind: 'task', work_key: `${assignment.agentId}:${assignment.taskId}` });
    await expectEventually(() => scheduler.reportsOf(assignment.taskId).length === 1, {
      message: 'the task is reported working',
    });

    await crash(first);
    const crashedAt = Date.now();
    // The crashed replica cannot finish it: nothing more arrives from it while nobody else is up.
    expect(finalReports(assignment.taskId)).toEqual([]);

    await bootReplica('replica-a');
    const [report] = (await expectEventually(
      () => (finalReports(assignment.taskId).length > 0 ? finalReports(assignment.taskId) : undefined),
      { message: 'the task is finished after the restart', timeoutMs: 20_000 },
    )) as ReportTaskV1Request[];
    const recoveryMs = Date.now() - crashedAt;
    expect(report).toMatchObject({ state: 'completed', content: expect.stringMatching(/^sum 42\n/) });
    // Well before the 60 s deadline the scheduler would otherwise have waited for.
    expect(recoveryMs).toBeLessThan(15_000);
    await expectEventually(async () => (await ownedRows()).length === 0, {
      message: 'the finished task is no longer owned',
    });
    expect(finalReports(assignment.taskId)).toHaveLength(1);
  });

  it('a turn being taken when its replica crashed is taken over by another replica once the lease runs out', async () => {
    const holder = await bootReplica('replica-a');
    const speakerId = registry.idOf('code-runner') as string;
    const turn = newTurnGrant([{ agentId: speakerId, name: 'code-runner' }], {
      goal: 'Run `console.log(6 * 7)` and report the answer.',
    });
    chat.groups.set(turn.groupId, { turn: 1, currentSpeaker: speakerId });
    // The chat takes the first proposal and never answers: the replica is caught in the middle of the turn.
    chat.script.push('silent');
    await jetstream(external).publish(TurnGrantedV1.subject, JSON.stringify(turn));
    const proposalsFor = () => chat.proposals.filter((proposal) => proposal.groupId === turn.groupId);
    await expectEventually(() => proposalsFor().length === 1, { message: 'the holder proposes a move' });
    expect(await ownedRows()).toContainEqual({ kind: 'turn', work_key: `${turn.groupId}:1` });

    await crash(holder);
    const crashedAt = Date.now();
    // Another replica, with its own instance id: it gets the turn only through the expired lease (the grant was
    // acknowledged by the holder, so JetStream will not deliver it again).
    await bootReplica('replica-b');
    await expectEventually(() => proposalsFor().length === 2, {
      message: 'the replica takes the turn again',
      timeoutMs: 20_000,
    });
    const recoveryMs = Date.now() - crashedAt;
    expect(proposalsFor()[1]).toMatchObject({ groupId: turn.groupId, turn: 1, speakerId });
    expect(chat.groups.get(turn.groupId)).toMatchObject({ turn: 2 });
    expect(recoveryMs).toBeGreaterThanOrEqual(LEASE_MS - 500);
    expect(recoveryMs).toBeLessThan(15_000);
    await expectEventually(async () => (await ownedRows()).length === 0, {
      message: 'the turn taken is no longer owned',
    });
  });

  it('a replica stopped gracefully hands its work over at once, not after its lease', async () => {
    // A lease far longer than the test: only the hand-over at shutdown lets the next replica have the task soon.
    const leaving = await bootReplica('replica-c', 60_000);
    const assignment = newAssignment(
      'new Promise((resolve) => setTimeout(() => resolve(["product", 6 * 7].join(" ")), 1500))',
    );
    expect(await rawRequest(external, subjectFor(AssignTaskV1, assignment.agentId), assignment)).toEqual({
      ok: true,
      data: { accepted: true },
    });
    await expectEventually(() => scheduler.reportsOf(assignment.taskId).length === 1, {
      message: 'the task is reported working',
    });
    live.delete(leaving);
    await leaving.close();
    expect(await ownedRows()).toContainEqual({ kind: 'task', work_key: `${assignment.agentId}:${assignment.taskId}` });
    const stoppedAt = Date.now();

    await bootReplica('replica-d');
    await expectEventually(() => finalReports(assignment.taskId).length === 1, {
      message: 'the next replica finishes the handed-over task',
      timeoutMs: 20_000,
    });
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    expect(finalReports(assignment.taskId)[0]).toMatchObject({
      state: 'completed',
      content: expect.stringMatching(/^product 42\n/),
    });
  });

  it('a task taken on three times without finishing is given up with the reason, not run a fourth time', async () => {
    const assignment = newAssignment('console.log("must not run")');
    // As three replicas that each died holding it would have left it.
    await database.query(
      `INSERT INTO "agent_host"."owned_work" ("kind", "work_key", "scope", "payload", "owner_id", "lease_expires_at", "claims")
       VALUES ('task', $1, 'code-runner', $2, 'gone', now() - interval '1 second', 3)`,
      [`${assignment.agentId}:${assignment.taskId}`, JSON.stringify(assignment)],
    );
    await bootReplica('replica-f');
    const [report] = (await expectEventually(
      () => (finalReports(assignment.taskId).length > 0 ? finalReports(assignment.taskId) : undefined),
      { message: 'the task is given up', timeoutMs: 20_000 },
    )) as ReportTaskV1Request[];
    expect(report).toMatchObject({
      state: 'failed',
      content: expect.stringContaining('took this task on 3 times without finishing it'),
    });
    expect(scheduler.reportsOf(assignment.taskId).map((sent) => sent.state)).toEqual(['failed']);
    await expectEventually(async () => !(await ownedRows()).some((row) => row.work_key.endsWith(assignment.taskId)), {
      message: 'the given-up task is no longer owned',
    });
  });

  it('acknowledges nothing it could not own: with its database gone an assignment gets a retryable error', async () => {
    const cutOff = await bootReplica('replica-e');
    await cutOff.get(DataSource).destroy();
    const assignment = newAssignment('console.log("never")');
    const reply = await rawRequest(external, subjectFor(AssignTaskV1, assignment.agentId), assignment);
    expect(reply).toMatchObject({ ok: false, error: { retryable: true } });
    expect(scheduler.reportsOf(assignment.taskId)).toEqual([]);
    live.delete(cutOff);
    await cutOff.get<NatsConnection>(NATS_CONNECTION).close();
  });
});
