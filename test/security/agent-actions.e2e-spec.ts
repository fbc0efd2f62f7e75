import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  CreateGroupV1,
  DeregisterOwnAgentV1,
  GetOwnGroupV1,
  HeartbeatAgentV1,
  HeartbeatOwnAgentV1,
  ListOwnGroupMessagesV1,
  MessagePostedToMemberV1,
  MessagePostedV1,
  ProposeOwnMoveV1,
  TurnGrantedToAgentV1,
  RegisterOwnAgentV1,
  ReportOwnTaskV1,
  subjectFor,
  UpdateOwnAgentV1,
  type AgentCardV1,
  type GroupV1,
  type ListMessagesV1Response,
  type RegisterAgentV1Response,
  type RequestContract,
} from '@ioa/contracts';
import { expectEventually, NatsPermissionProbe, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { ChatModule } from '../../apps/chat/src/chat.module.js';
import { SchedulerModule } from '../../apps/scheduler/src/scheduler.module.js';
import { startServices } from '../support/platform-services.js';
import { AttackTally } from './support/attack-tally.js';

const OWNER = 'acme-agents';
const decoder = new TextDecoder();

interface Envelope<T> {
  ok: boolean;
  data?: T;
  error?: { code: string; message: string };
}

/**
 * Who acts is the subject an agent may publish on, never a field it fills: agents with their own NATS identities act
 * on `ioa.agent.<own id>.…`, the broker refuses them anyone else's subjects, and a payload naming another agent on
 * the sender's own subject is FORBIDDEN.
 */
describe('agents act as themselves, on subjects that name them', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  const alice = randomUUID();
  const bob = randomUUID();
  const carol = randomUUID();
  const connections = new Map<string, NatsConnection>();
  let scheduler: NatsConnection;
  const tally = new AttackTally('actor from the subject');

  async function ask<T>(
    as: string,
    contract: RequestContract<never, unknown> | RequestContract<unknown, unknown>,
    on: string,
    body: unknown,
  ): Promise<Envelope<T>> {
    const reply = await connections
      .get(as)!
      .request(subjectFor(contract, on), JSON.stringify(body), { timeout: 5_000 });
    return JSON.parse(decoder.decode(reply.data)) as Envelope<T>;
  }

  async function allowed<T>(envelope: Promise<Envelope<T>>): Promise<T> {
    const reply = await envelope;
    expect(reply.error).toBeUndefined();
    tally.count('allowed');
    return reply.data as T;
  }

  async function refused(envelope: Promise<Envelope<unknown>>, code: string, message?: RegExp): Promise<void> {
    const reply = await envelope;
    expect(reply.ok).toBe(false);
    expect(reply.error?.code).toBe(code);
    if (message) expect(reply.error?.message).toMatch(message);
    tally.count('refused');
  }

  /** The broker refuses the publish: the request fails with a permissions violation, and no service sees it. */
  async function refusedByBroker(envelope: Promise<unknown>): Promise<void> {
    await expect(envelope).rejects.toThrow(/Permissions Violation/);
    tally.count('refused');
  }

  function card(name: string) {
    return {
      name,
      description: `${name}: an external agent of ${OWNER}`,
      skills: [{ id: 'forecast', name: 'Forecast', description: 'Forecasts the weather', tags: [], examples: [] }],
      owner: OWNER,
      endpoint: { kind: 'nats' },
    };
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure({ auth: true });
    infrastructure.applyEnvironment();
    services.push(
      ...(await startServices(
        [
          [RegistryModule, 'registry'],
          [ChatModule, 'chat'],
          [SchedulerModule, 'scheduler'],
        ],
        ['error'],
      )),
    );
    for (const agent of [alice, bob, carol]) connections.set(agent, await infrastructure.connectAsAgent(agent));
    scheduler = await infrastructure.connectAsService('scheduler');
  }, 120_000);

  afterAll(async () => {
    process.stdout.write(`${tally.report()}\n`);
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it('registers, heartbeats and updates its own card under its identity id', async () => {
    const registered = await allowed<RegisterAgentV1Response>(
      ask(alice, RegisterOwnAgentV1, alice, card(`forecaster-${alice.slice(0, 8)}`)),
    );
    expect(registered.agent).toMatchObject({ id: alice, owner: OWNER, status: 'online' });
    await allowed(ask(bob, RegisterOwnAgentV1, bob, card(`reader-${bob.slice(0, 8)}`)));
    await allowed(ask(carol, RegisterOwnAgentV1, carol, card(`outsider-${carol.slice(0, 8)}`)));
    expect(await allowed(ask(alice, HeartbeatOwnAgentV1, alice, {}))).toMatchObject({ status: 'online' });
    const updated = await allowed<AgentCardV1>(
      ask(alice, UpdateOwnAgentV1, alice, { owner: OWNER, description: 'Forecasts rain, now also snow' }),
    );
    expect(updated).toMatchObject({ id: alice, description: 'Forecasts rain, now also snow', revision: 2 });
  });

  it("refuses another agent's subjects at the broker", async () => {
    await refusedByBroker(ask(bob, HeartbeatOwnAgentV1, alice, {}));
    await refusedByBroker(ask(bob, UpdateOwnAgentV1, alice, { owner: OWNER, description: 'hijacked' }));
    await refusedByBroker(ask(bob, DeregisterOwnAgentV1, alice, { owner: OWNER }));
    await refusedByBroker(ask(bob, RegisterOwnAgentV1, alice, card('impostor')));
    // The services' own subjects are the platform's, not an agent's.
    const heartbeat = connections.get(bob)!.request(HeartbeatAgentV1.subject, JSON.stringify({ id: alice }));
    await refusedByBroker(heartbeat);
  });

  it('refuses a payload that names another agent on the sender’s own subject', async () => {
    await refused(ask(bob, HeartbeatOwnAgentV1, bob, { id: alice }), 'FORBIDDEN', /does not match the sending agent/);
    await refused(ask(bob, UpdateOwnAgentV1, bob, { id: alice, owner: OWNER, description: 'x' }), 'FORBIDDEN');
    await refused(ask(bob, DeregisterOwnAgentV1, bob, { id: alice, owner: OWNER }), 'FORBIDDEN');
    await refused(
      ask(bob, ReportOwnTaskV1, bob, { taskId: randomUUID(), agentId: alice, state: 'completed', content: 'x' }),
      'FORBIDDEN',
    );
    // Taking another agent's name under one's own id is a conflict, not a take-over.
    const taken = (await ask<AgentCardV1>(alice, HeartbeatOwnAgentV1, alice, {})).ok;
    expect(taken).toBe(true);
    await refused(ask(bob, RegisterOwnAgentV1, bob, card(`forecaster-${alice.slice(0, 8)}`)), 'CONFLICT');
    // Alice's card is untouched by all of this.
    expect((await allowed<AgentCardV1>(ask(alice, UpdateOwnAgentV1, alice, { owner: OWNER }))).description).toBe(
      'Forecasts rain, now also snow',
    );
  });

  it('lets members speak and read in their group, and nobody else', async () => {
    const inbox = (agent: string, contract: { subject: string }) => {
      const received: unknown[] = [];
      connections.get(agent)!.subscribe(subjectFor(contract, agent), {
        callback: (_error, message) => {
          received.push(JSON.parse(decoder.decode(message.data)));
        },
      });
      return received;
    };
    const aliceTurns = inbox(alice, TurnGrantedToAgentV1);
    const bobTurns = inbox(bob, TurnGrantedToAgentV1);
    const bobMessages = inbox(bob, MessagePostedToMemberV1);
    const carolMessages = inbox(carol, MessagePostedToMemberV1);
    for (const agent of [alice, bob, carol]) await connections.get(agent)!.flush();
    const goalId = randomUUID();
    const opened = await scheduler.request(
      CreateGroupV1.subject,
      JSON.stringify({
        goalId,
        goal: 'Tell whether it rains tomorrow',
        leaderId: alice,
        members: [
          { agentId: alice, name: `forecaster-${alice.slice(0, 8)}`, reason: 'forecasts' },
          { agentId: bob, name: `reader-${bob.slice(0, 8)}`, reason: 'reads' },
        ],
      }),
      { timeout: 5_000 },
    );
    const group = (JSON.parse(decoder.decode(opened.data)) as Envelope<GroupV1>).data!;
    expect(group.members.map((member) => member.agentId)).toEqual([alice, bob]);
    // The leader is told it holds the first turn, on its own subject.
    await expectEventually(() => aliceTurns.length === 1, { timeoutMs: 10_000, message: 'alice gets turn 1' });
    expect(aliceTurns[0]).toMatchObject({ groupId: group.id, turn: 1, speakerId: alice });

    // A move as the turn holder, with `speakerId` left to the subject.
    const move = { groupId: group.id, turn: 1, type: 'discussion', content: 'Rain is likely.', nextSpeaker: bob };
    await refused(ask(bob, ProposeOwnMoveV1, bob, { ...move, speakerId: alice }), 'FORBIDDEN');
    await refusedByBroker(ask(bob, ProposeOwnMoveV1, alice, move));
    await allowed(ask(alice, ProposeOwnMoveV1, alice, move));
    // Each member gets the message on its own subject, and the next speaker its turn; an outsider gets nothing, and
    // may not listen on a member's subject.
    await expectEventually(() => bobMessages.length >= 2 && bobTurns.length === 1, {
      timeoutMs: 10_000,
      message: 'bob gets the message and turn 2',
    });
    expect(bobMessages).toContainEqual(
      expect.objectContaining({
        message: expect.objectContaining({ content: 'Rain is likely.', senderId: alice, seq: 2 }),
      }),
    );
    expect(bobTurns[0]).toMatchObject({ groupId: group.id, turn: 2, speakerId: bob });
    const probe = new NatsPermissionProbe(connections.get(carol)!);
    expect(await probe.subscribe(subjectFor(MessagePostedToMemberV1, bob))).toBe('refused');
    expect(await probe.subscribe(MessagePostedV1.subject)).toBe('refused');
    tally.count('refused', 2);
    expect(carolMessages).toEqual([]);

    const page = await allowed<ListMessagesV1Response>(
      ask(bob, ListOwnGroupMessagesV1, bob, { groupId: group.id, afterSeq: 0 }),
    );
    expect(page.items.map((message) => message.content)).toContain('Rain is likely.');
    expect((await allowed<GroupV1>(ask(bob, GetOwnGroupV1, bob, { groupId: group.id }))).id).toBe(group.id);
    await refused(ask(carol, ListOwnGroupMessagesV1, carol, { groupId: group.id }), 'FORBIDDEN', /not a member/);
    await refused(ask(carol, GetOwnGroupV1, carol, { groupId: group.id }), 'FORBIDDEN');
    await refusedByBroker(ask(carol, ListOwnGroupMessagesV1, bob, { groupId: group.id }));
    // A member that does not hold the turn is refused by the conversation's rules.
    await refused(ask(carol, ProposeOwnMoveV1, carol, { ...move, turn: 2 }), 'FORBIDDEN');
  });

  it('deregisters itself', async () => {
    expect(await allowed(ask(carol, DeregisterOwnAgentV1, carol, { owner: OWNER }))).toMatchObject({
      id: carol,
      deregistered: true,
    });
    // Every refusal the broker logged was one of the agents' attempts: no platform service was refused anything.
    const byServices = infrastructure
      .permissionViolations()
      .filter((line) => ![alice, bob, carol].some((agent) => line.includes(agent)));
    expect(byServices).toEqual([]);
  });
});
