import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  ALL_CONTRACTS,
  CreateGroupV1,
  ProposeMoveV1,
  TaskUpdatedV1,
  TurnGrantedV1,
  type ChatMessageV1,
  type CreateGroupV1Request,
  type ErrorBody,
  type EventContract,
  type GroupMemberV1,
  type GroupTaskV1,
  type GroupV1,
  type ProposeMoveV1Request,
  type ProposeMoveV1Response,
  type RequestContract,
  type TaskState,
  type TaskV1,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { createService, EventBus } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { ChatModule } from '../chat.module.js';

const CHAT_EVENT_SUBJECTS = new Set(
  ALL_CONTRACTS.filter((contract) => contract.kind === 'event' && contract.owner === 'chat').map(
    (contract) => contract.subject,
  ),
);

/** What a NATS reply looks like to an external agent. */
export type Envelope<T> = { ok: true; data: T } | { ok: false; error: ErrorBody };

/** Every chat event seen on the wire by a plain NATS subscriber (an observer needs nothing of ours). */
export class EventLog {
  readonly seen: Array<{ subject: string; payload: unknown }> = [];
  private subscription?: Subscription;

  async start(connection: NatsConnection): Promise<void> {
    this.subscription = connection.subscribe('ioa.chat.>');
    void (async () => {
      for await (const message of this.subscription!) {
        // Requests to the chat also match `ioa.chat.>`; only event subjects are recorded. (JetStream publishes
        // carry a reply subject for their ack, so the reply subject cannot tell events and requests apart.)
        if (!CHAT_EVENT_SUBJECTS.has(message.subject)) continue;
        this.seen.push({ subject: message.subject, payload: JSON.parse(new TextDecoder().decode(message.data)) });
      }
    })();
    await connection.flush();
  }

  of<T>(contract: EventContract<T>, predicate: (payload: T) => boolean = () => true): T[] {
    return this.seen
      .filter((event) => event.subject === contract.subject)
      .map((event) => event.payload as T)
      .filter(predicate);
  }

  /** Waits until an event of `contract` matching `predicate` has been seen, and returns it. */
  waitFor<T>(contract: EventContract<T>, predicate: (payload: T) => boolean, message?: string): Promise<T> {
    return expectEventually(() => this.of(contract, predicate)[0], {
      timeoutMs: 10_000,
      message: message ?? `no ${contract.subject} event matched`,
    });
  }

  turnGranted(groupId: string, turn: number): Promise<TurnGrantedV1Event> {
    return this.waitFor(
      TurnGrantedV1,
      (event) => event.groupId === groupId && event.turn === turn,
      `no turn ${turn} granted in ${groupId}`,
    );
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}

export interface ChatHarness {
  infrastructure: TestInfrastructure;
  service: INestMicroservice;
  /** A bare NATS client: members, observers and the scheduler act through it, as an external agent would. */
  external: NatsConnection;
  events: EventLog;
  /** The chat's own bus, used to publish what the scheduler would publish (`TaskUpdatedV1`). */
  bus: EventBus;
  call<Request, Response>(contract: RequestContract<Request, Response>, body: unknown): Promise<Envelope<Response>>;
  ok<Request, Response>(contract: RequestContract<Request, Response>, body: Request): Promise<Response>;
  /** Boots another replica of the chat against the same NATS and database (same queue group, same durable). */
  startReplica(): Promise<INestMicroservice>;
  stop(): Promise<void>;
}

/** Real nats-server + a fresh database, and the chat service booted as in production (short sweep intervals). */
export async function startChat(environment: Record<string, string> = {}): Promise<ChatHarness> {
  const infrastructure = await startTestInfrastructure();
  infrastructure.applyEnvironment({
    CHAT_TURN_TIMEOUT_SWEEP_MS: '50',
    CHAT_OUTBOX_RETRY_MS: '200',
    ...environment,
  });
  const service = await createService(ChatModule, { name: 'chat', logger: false });
  const external = await connectRaw(infrastructure.natsUrl);
  const events = new EventLog();
  await events.start(external);
  const replicas: INestMicroservice[] = [];
  const harness: ChatHarness = {
    infrastructure,
    service,
    external,
    events,
    bus: service.get(EventBus),
    call: (contract, body) => rawRequest(external, contract.subject, body) as never,
    async ok(contract, body) {
      const reply = await harness.call(contract, body);
      if (!reply.ok) throw new Error(`${contract.subject} failed: ${JSON.stringify(reply.error)}`);
      return reply.data;
    },
    async startReplica() {
      const replica = await createService(ChatModule, { name: 'chat', logger: false });
      replicas.push(replica);
      return replica;
    },
    async stop() {
      events.stop();
      await external?.close();
      for (const replica of replicas) await replica.close();
      await service?.close();
      await infrastructure?.stop();
    },
  };
  return harness;
}

export function newMember(name: string): GroupMemberV1 {
  return { agentId: randomUUID(), name, reason: `${name} was picked` };
}

export interface OpenedGroup {
  group: GroupV1;
  lead: GroupMemberV1;
  bob: GroupMemberV1;
  carol: GroupMemberV1;
}

/** A fresh group of three (lead, bob, carol), lead leading; waits for the leader's first turn to be granted. */
export async function openGroup(
  harness: ChatHarness,
  overrides: Partial<CreateGroupV1Request> = {},
): Promise<OpenedGroup> {
  const [lead, bob, carol] = [newMember('lead'), newMember('bob'), newMember('carol')];
  const group = await harness.ok(CreateGroupV1, {
    goalId: randomUUID(),
    goal: 'Compute 1+1 and write a short report',
    members: [lead, bob, carol],
    leaderId: lead.agentId,
    maxTurns: 12,
    turnTimeoutSeconds: 60,
    ...overrides,
  });
  await harness.events.turnGranted(group.id, 1);
  return { group, lead, bob, carol };
}

/** Proposes a move as `speaker`, for the group's current turn unless given. */
export function move(
  harness: ChatHarness,
  group: GroupV1,
  speaker: GroupMemberV1,
  fields: Partial<ProposeMoveV1Request> & Pick<ProposeMoveV1Request, 'type'>,
): Promise<Envelope<ProposeMoveV1Response>> {
  return harness.call(ProposeMoveV1, {
    groupId: group.id,
    speakerId: speaker.agentId,
    turn: group.turn,
    content: `${speaker.name} says something`,
    ...fields,
  });
}

/** Like `move`, but the move must be accepted; returns the reply. */
export async function accepted(
  harness: ChatHarness,
  group: GroupV1,
  speaker: GroupMemberV1,
  fields: Partial<ProposeMoveV1Request> & Pick<ProposeMoveV1Request, 'type'>,
): Promise<ProposeMoveV1Response> {
  const reply = await move(harness, group, speaker, fields);
  if (!reply.ok) throw new Error(`move rejected: ${JSON.stringify(reply.error)}`);
  return reply.data;
}

/** The scheduler's view of a task the chat assigned, in `state`. */
export function taskOf(group: GroupV1, task: GroupTaskV1, state: TaskState, overrides: Partial<TaskV1> = {}): TaskV1 {
  const now = new Date().toISOString();
  return {
    id: task.taskId,
    goalId: group.goalId,
    groupId: group.id,
    parentTaskId: null,
    assignerId: task.assignerId,
    assigneeId: task.assigneeId,
    assigneeName: task.assigneeName,
    mode: task.mode,
    description: task.abstract,
    brief: null,
    state,
    result: state === 'completed' ? `result of ${task.abstract}` : null,
    statusMessage: null,
    deadline: null,
    attempts: 1,
    childGoalId: null,
    createdAt: now,
    updatedAt: now,
    startedAt: now,
    completedAt: state === 'completed' ? now : null,
    ...overrides,
  };
}

/** Publishes a task update as the scheduler does (JetStream, durable): the chat consumes it. */
export async function reportTask(harness: ChatHarness, task: TaskV1, messageId?: string): Promise<void> {
  await harness.bus.publish(TaskUpdatedV1, { task }, messageId ? { messageId } : {});
}

export function contents(messages: ChatMessageV1[]): string[] {
  return messages.map((message) => `${message.seq}:${message.type}:${message.senderName}`);
}
