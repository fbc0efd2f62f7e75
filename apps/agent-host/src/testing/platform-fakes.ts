import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import {
  GetAgentV1,
  GetGroupV1,
  HeartbeatAgentV1,
  ProposeMoveV1,
  RegisterAgentV1,
  ReportTaskV1,
  SubmitGoalV1,
  type AgentCardV1,
  type ErrorCode,
  type GroupTaskV1,
  type ProposeMoveV1Request,
  type RegisterAgentV1Request,
  type ReportTaskV1Request,
  type SubmitGoalV1Request,
} from '@ioa/contracts';

/**
 * Stand-ins for the registry, scheduler and chat, speaking the public contract over raw NATS (as an external
 * implementation would): they let agent-host's integration specs watch exactly what it sends. The system test in
 * `test/` runs agent-host against the real services.
 */

const decoder = new TextDecoder();

/** A handler's answer that sends no reply at all: the caller waits, as for a service that died mid-request. */
const NO_REPLY = Symbol('no reply');

function serve(connection: NatsConnection, subject: string, handle: (body: never) => unknown): void {
  connection.subscribe(subject, {
    callback: (error, message: Msg) => {
      if (error) return;
      const body = JSON.parse(decoder.decode(message.data)) as never;
      const result = handle(body);
      if (result === NO_REPLY) return;
      message.respond(
        JSON.stringify(result instanceof FakeRefusal ? { ok: false, error: result.body } : { ok: true, data: result }),
      );
    },
  });
}

export class FakeRefusal {
  constructor(readonly body: { code: ErrorCode; message: string; retryable: boolean }) {}
}

export function refuse(code: ErrorCode, message: string): FakeRefusal {
  return new FakeRefusal({ code, message, retryable: ['UNAVAILABLE', 'TIMEOUT', 'INTERNAL'].includes(code) });
}

export interface FakeRegistry {
  cards: Map<string, AgentCardV1>;
  heartbeats: Map<string, number>;
  registrations: RegisterAgentV1Request[];
  idOf(name: string): string | undefined;
  /** Adds a card as if some other agent had registered. */
  add(card: Partial<AgentCardV1> & { name: string }): AgentCardV1;
  /** Drops a card: its next heartbeat gets NOT_FOUND. */
  forget(id: string): void;
}

export function startFakeRegistry(connection: NatsConnection, heartbeatTtlSeconds = 3): FakeRegistry {
  const cards = new Map<string, AgentCardV1>();
  const heartbeats = new Map<string, number>();
  const registrations: RegisterAgentV1Request[] = [];
  const store = (card: Partial<AgentCardV1> & { name: string }): AgentCardV1 => {
    const now = new Date().toISOString();
    const stored: AgentCardV1 = {
      id: randomUUID(),
      description: card.name,
      skills: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      owner: 'someone',
      endpoint: { kind: 'nats' },
      version: '1.0.0',
      metadata: {},
      status: 'online',
      revision: 1,
      registeredAt: now,
      updatedAt: now,
      lastSeenAt: now,
      ...card,
    };
    cards.set(stored.id, stored);
    return stored;
  };
  const byName = (name: string) => [...cards.values()].find((card) => card.name === name);
  serve(connection, RegisterAgentV1.subject, (request: RegisterAgentV1Request) => {
    registrations.push(request);
    const existing = byName(request.name);
    if (existing) {
      const updated = { ...existing, ...request, revision: existing.revision + 1 };
      cards.set(existing.id, updated);
      return { agent: updated, created: false, heartbeatTtlSeconds };
    }
    return { agent: store(request), created: true, heartbeatTtlSeconds };
  });
  serve(connection, HeartbeatAgentV1.subject, (request: { id: string }) => {
    if (!cards.has(request.id)) return refuse('NOT_FOUND', `Agent "${request.id}" does not exist`);
    heartbeats.set(request.id, (heartbeats.get(request.id) ?? 0) + 1);
    return { status: 'online', heartbeatTtlSeconds };
  });
  serve(connection, GetAgentV1.subject, (request: { id?: string; name?: string }) => {
    const card = request.id ? cards.get(request.id) : byName(request.name ?? '');
    return card ?? refuse('NOT_FOUND', `Agent "${request.id ?? request.name}" does not exist`);
  });
  return {
    cards,
    heartbeats,
    registrations,
    idOf: (name) => byName(name)?.id,
    add: store,
    forget: (id) => void cards.delete(id),
  };
}

export interface FakeScheduler {
  /** Every report received, including those answered with a refusal. */
  reports: ReportTaskV1Request[];
  /** Answers to the next reports (accept when empty), e.g. UNAVAILABLE while "restarting". */
  reportScript: FakeRefusal[];
  goals: SubmitGoalV1Request[];
  reportsOf(taskId: string): ReportTaskV1Request[];
}

export function startFakeScheduler(connection: NatsConnection): FakeScheduler {
  const reports: ReportTaskV1Request[] = [];
  const reportScript: FakeRefusal[] = [];
  const goals: SubmitGoalV1Request[] = [];
  serve(connection, ReportTaskV1.subject, (request: ReportTaskV1Request) => {
    reports.push(request);
    return reportScript.shift() ?? { id: request.taskId, state: request.state };
  });
  serve(connection, SubmitGoalV1.subject, (request: SubmitGoalV1Request) => {
    goals.push(request);
    return { id: randomUUID(), goal: request.goal, status: 'submitted', parentTaskId: request.parentTaskId ?? null };
  });
  return {
    reports,
    reportScript,
    goals,
    reportsOf: (taskId) => reports.filter((report) => report.taskId === taskId),
  };
}

export interface FakeChat {
  proposals: ProposeMoveV1Request[];
  /** Answers to the next proposals (accept when empty); `silent` records the proposal and never answers. */
  script: Array<'accept' | 'silent' | FakeRefusal>;
  /** What GetGroupV1 says about a group's turn and ledger (default: still the proposing speaker's turn). */
  groups: Map<string, { turn: number; currentSpeaker: string | null; tasks?: GroupTaskV1[] }>;
}

export function startFakeChat(connection: NatsConnection): FakeChat {
  const chat: FakeChat = { proposals: [], script: [], groups: new Map() };
  serve(connection, ProposeMoveV1.subject, (request: ProposeMoveV1Request) => {
    chat.proposals.push(request);
    const answer = chat.script.shift() ?? 'accept';
    if (answer === 'silent') return NO_REPLY;
    if (answer !== 'accept') return answer;
    chat.groups.set(request.groupId, { turn: request.turn + 1, currentSpeaker: request.nextSpeaker ?? null });
    return { message: { groupId: request.groupId, type: request.type }, group: { id: request.groupId } };
  });
  serve(connection, GetGroupV1.subject, (request: { groupId: string }) => {
    const group = chat.groups.get(request.groupId);
    return group
      ? { id: request.groupId, tasks: [], ...group }
      : refuse('NOT_FOUND', `Group "${request.groupId}" does not exist`);
  });
  return chat;
}
