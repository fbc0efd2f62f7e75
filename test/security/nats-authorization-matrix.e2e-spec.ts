import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AgentRegisteredV1,
  AgentWentOfflineV1,
  ALL_CONTRACTS,
  CHAT_EVENTS_STREAM,
  GetAgentV1,
  GoalEventAppendedV1,
  GroupStateChangedV1,
  SearchAgentsV1,
  TasksAssignedV1,
  type AnyContract,
} from '@ioa/contracts';
import { NatsPermissionProbe, startTestInfrastructure, type ProbeOutcome, type TestInfrastructure } from '@ioa/testing';
import { durableConsumerName, PLATFORM_SERVICES, type PlatformService } from '@ioa/trust';
import { AttackTally } from './support/attack-tally.js';

/**
 * The NATS side of the authorization matrix: agent A, agent B, an anonymous connection and each service, against
 * the actions of the "Why", on a real nats-server with JWT authentication and the credentials `npm start`
 * provisions. Each row is an attempt and the broker's expected answer; every attack of the issue is a named test.
 */
describe('NATS authorization matrix', () => {
  let infrastructure: TestInfrastructure;
  const tally = new AttackTally('NATS matrix');
  const probes = new Map<string, NatsPermissionProbe>();

  /** One principal's connection and probe (cached: one connection per principal). */
  async function as(principal: string, connect: () => Promise<NatsConnection>): Promise<NatsPermissionProbe> {
    const known = probes.get(principal);
    if (known) return known;
    const probe = new NatsPermissionProbe(await connect());
    probes.set(principal, probe);
    return probe;
  }
  const agent = (id: string) => as(`agent:${id}`, () => infrastructure.connectAsAgent(id));
  const service = (name: PlatformService) => as(`service:${name}`, () => infrastructure.connectAsService(name));

  /** Asserts one row and counts it: a refusal expected is an attack, an allowance expected is an action. */
  function expectOutcome(row: string, outcome: ProbeOutcome, expected: ProbeOutcome): void {
    expect(`${row}: ${outcome}`).toBe(`${row}: ${expected}`);
    tally.count(expected);
  }

  const serviceEvents = ALL_CONTRACTS.filter(
    (contract): contract is AnyContract & { kind: 'event' } =>
      contract.kind === 'event' && (PLATFORM_SERVICES as readonly string[]).includes(contract.owner),
  );
  const serviceRequests = ALL_CONTRACTS.filter(
    (contract) => contract.kind === 'request' && (PLATFORM_SERVICES as readonly string[]).includes(contract.owner),
  );

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure({ auth: true });
  });

  afterAll(async () => {
    await infrastructure?.stop();
    process.stdout.write(`${tally.report()}\n`);
  });

  describe('anonymous', () => {
    it('cannot connect at all', async () => {
      await expect(infrastructure.connectAnonymous()).rejects.toThrow(/Authorization/i);
      tally.count('refused');
    });
  });

  describe('an agent', () => {
    it('acts on its own subjects, reads its own inbox and asks the two read-only platform questions', async () => {
      const a = await agent('agent-a');
      for (const subject of [
        'ioa.agent.agent-a.register.v1',
        'ioa.agent.agent-a.heartbeat.v1',
        'ioa.agent.agent-a.move.propose.v1',
        'ioa.agent.agent-a.task.report.v1',
        SearchAgentsV1.subject,
        GetAgentV1.subject,
      ]) {
        expectOutcome(`agent-a publishes ${subject}`, await a.publish(subject), 'allowed');
      }
      for (const subject of ['ioa.agent.agent-a.task.v1', 'ioa.agent.agent-a.message.posted.v1', '_INBOX.agent-a.>']) {
        expectOutcome(`agent-a subscribes ${subject}`, await a.subscribe(subject), 'allowed');
      }
    });

    it('cannot read every group message and task brief with one ">" subscription', async () => {
      const a = await agent('agent-a');
      for (const subject of ['>', 'ioa.>', 'ioa.agent.>', 'ioa.agent.*.task.v1', 'ioa.chat.message.posted.v1']) {
        expectOutcome(`agent-a subscribes ${subject}`, await a.subscribe(subject), 'refused');
      }
    });

    it("cannot read another agent's tasks, messages or replies", async () => {
      const a = await agent('agent-a');
      for (const subject of [
        'ioa.agent.agent-b.task.v1',
        'ioa.agent.agent-b.message.posted.v1',
        'ioa.agent.agent-b.turn.granted.v1',
        '_INBOX.agent-b.>',
        '_INBOX.>',
        '_INBOX.scheduler.>',
      ]) {
        expectOutcome(`agent-a subscribes ${subject}`, await a.subscribe(subject), 'refused');
      }
    });

    it('cannot heartbeat, update, deregister, propose or report as another agent', async () => {
      const a = await agent('agent-a');
      for (const subject of [
        'ioa.agent.agent-b.heartbeat.v1',
        'ioa.agent.agent-b.update.v1',
        'ioa.agent.agent-b.deregister.v1',
        'ioa.agent.agent-b.register.v1',
        'ioa.agent.agent-b.move.propose.v1',
        'ioa.agent.agent-b.task.report.v1',
      ]) {
        expectOutcome(`agent-a publishes ${subject}`, await a.publish(subject), 'refused');
      }
    });

    it('cannot use the services-only subjects that name the actor in the payload', async () => {
      const a = await agent('agent-a');
      for (const subject of [
        'ioa.registry.agent.register.v1',
        'ioa.registry.agent.heartbeat.v1',
        'ioa.registry.agent.update.v1',
        'ioa.registry.agent.deregister.v1',
        'ioa.chat.move.propose.v1',
        'ioa.scheduler.task.report.v1',
        'ioa.scheduler.goal.cancel.v1',
      ]) {
        expectOutcome(`agent-a publishes ${subject}`, await a.publish(subject), 'refused');
      }
    });

    it("cannot answer ioa.registry.agent.get.v1 in the registry's place (plain or in its queue group)", async () => {
      const a = await agent('agent-a');
      expectOutcome('agent-a subscribes registry get', await a.subscribe(GetAgentV1.subject), 'refused');
      expectOutcome(
        'agent-a joins the registry queue group',
        await a.subscribe(GetAgentV1.subject, 'registry'),
        'refused',
      );
      for (const contract of serviceRequests) {
        expectOutcome(`agent-a serves ${contract.subject}`, await a.subscribe(contract.subject), 'refused');
      }
    });

    it("cannot receive tasks by joining agent-host's queue group", async () => {
      const a = await agent('agent-a');
      expectOutcome(
        'agent-a joins agent-host on ioa.agent.*.task.v1',
        await a.subscribe('ioa.agent.*.task.v1', 'agent-host'),
        'refused',
      );
      expectOutcome(
        "agent-a joins agent-host on agent-b's tasks",
        await a.subscribe('ioa.agent.agent-b.task.v1', 'agent-host'),
        'refused',
      );
    });

    it('cannot publish any platform event (forged state changes, task assignments, presence, goal events)', async () => {
      const a = await agent('agent-a');
      // The forged events first, then every other event of the catalog.
      const forged = [GroupStateChangedV1, TasksAssignedV1, AgentWentOfflineV1, AgentRegisteredV1, GoalEventAppendedV1];
      for (const event of [...forged, ...serviceEvents.filter((event) => !forged.includes(event as never))]) {
        expectOutcome(`agent-a publishes ${event.subject}`, await a.publish(event.subject), 'refused');
      }
    });

    it('cannot use the JetStream API (no consumer deleted, no stream read)', async () => {
      const a = await agent('agent-a');
      for (const subject of [
        '$JS.API.INFO',
        `$JS.API.CONSUMER.DELETE.${CHAT_EVENTS_STREAM}.${durableConsumerName('scheduler', GroupStateChangedV1.subject)}`,
        `$JS.API.STREAM.DELETE.${CHAT_EVENTS_STREAM}`,
        `$JS.API.STREAM.MSG.GET.${CHAT_EVENTS_STREAM}`,
        `$JS.API.CONSUMER.CREATE.${CHAT_EVENTS_STREAM}`,
      ]) {
        expectOutcome(`agent-a publishes ${subject}`, await a.publish(subject), 'refused');
      }
    });

    it('is refused the same way as agent B (the template is per identity)', async () => {
      const b = await agent('agent-b');
      expectOutcome('agent-b publishes its heartbeat', await b.publish('ioa.agent.agent-b.heartbeat.v1'), 'allowed');
      expectOutcome('agent-b heartbeats as agent-a', await b.publish('ioa.agent.agent-a.heartbeat.v1'), 'refused');
      expectOutcome("agent-b reads agent-a's tasks", await b.subscribe('ioa.agent.agent-a.task.v1'), 'refused');
    });
  });

  describe('each service', () => {
    it('publishes its own events and serves its own requests in its queue group', async () => {
      for (const name of PLATFORM_SERVICES) {
        const probe = await service(name);
        for (const event of serviceEvents.filter((event) => event.owner === name)) {
          expectOutcome(`${name} publishes ${event.subject}`, await probe.publish(event.subject), 'allowed');
        }
        for (const request of serviceRequests.filter((request) => request.owner === name)) {
          expectOutcome(`${name} serves ${request.subject}`, await probe.subscribe(request.subject, name), 'allowed');
        }
      }
    });

    it("cannot publish another service's events", async () => {
      for (const name of PLATFORM_SERVICES) {
        const probe = await service(name);
        for (const event of serviceEvents.filter((event) => event.owner !== name)) {
          expectOutcome(`${name} publishes ${event.subject}`, await probe.publish(event.subject), 'refused');
        }
      }
    });

    it("cannot serve another service's requests or join its queue group", async () => {
      for (const name of PLATFORM_SERVICES) {
        const probe = await service(name);
        for (const request of serviceRequests.filter((request) => request.owner !== name)) {
          expectOutcome(
            `${name} joins ${request.owner} on ${request.subject}`,
            await probe.subscribe(request.subject, request.owner),
            'refused',
          );
        }
      }
    });

    it("cannot read everything, another's replies, or delete streams and other services' consumers", async () => {
      for (const name of PLATFORM_SERVICES) {
        const probe = await service(name);
        expectOutcome(`${name} subscribes >`, await probe.subscribe('>'), 'refused');
        const other = PLATFORM_SERVICES.find((candidate) => candidate !== name)!;
        expectOutcome(`${name} reads ${other}'s replies`, await probe.subscribe(`_INBOX.${other}.>`), 'refused');
        expectOutcome(
          `${name} deletes the chat stream`,
          await probe.publish(`$JS.API.STREAM.DELETE.${CHAT_EVENTS_STREAM}`),
          'refused',
        );
        expectOutcome(
          `${name} purges the chat stream`,
          await probe.publish(`$JS.API.STREAM.PURGE.${CHAT_EVENTS_STREAM}`),
          'refused',
        );
        if (name !== 'scheduler') {
          const consumer = durableConsumerName('scheduler', GroupStateChangedV1.subject);
          expectOutcome(
            `${name} deletes the scheduler's consumer`,
            await probe.publish(`$JS.API.CONSUMER.DELETE.${CHAT_EVENTS_STREAM}.${consumer}`),
            'refused',
          );
        }
      }
    });
  });
});
