// class-transformer's @Type in the contract classes needs the Reflect metadata API, loaded before they are.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  actorOfSubject,
  ContractError,
  HeartbeatAgentV1,
  HeartbeatOwnAgentV1,
  ProposeMoveV1,
  ProposeOwnMoveV1,
  RegisterAgentV1,
  RegisterOwnAgentV1,
  ReportOwnTaskV1,
  ReportTaskV1,
  type AgentCardV1,
  type RegisterAgentV1Response,
  type RequestContract,
} from '@ioa/contracts';
import { decodeJson, respondError, respondOk } from '../nats-wire.js';

/** One request the agent under test sent to the platform, as the kit saw it. */
export interface Observation {
  at: number;
  kind: 'register' | 'heartbeat' | 'report' | 'move';
  body: Record<string, unknown>;
  /** The agent the subject named, when the agent acted on its own subject (`ioa.agent.<id>.…`). */
  actor?: string;
  /** What the kit answered: `ok`, or the error code. */
  answer: string;
}

/** The agent's own subjects, by what the kit observes on them (only those whose subject is not the service's). */
const OWN_SUBJECTS: Record<Observation['kind'], RequestContract<unknown, unknown>> = {
  register: RegisterOwnAgentV1,
  heartbeat: HeartbeatOwnAgentV1,
  report: ReportOwnTaskV1,
  move: ProposeOwnMoveV1,
};

/** How the stand-in registry treats heartbeats right now. */
export type HeartbeatMode = 'answer' | 'not-found-once' | 'silent';

/**
 * The platform's side of the agent contract, played by the conformance kit: it serves registration, heartbeats,
 * task reports and moves on a broker where the real platform is not running, answers as the real services would,
 * and records every request, so each rule can be judged from what the agent actually sent. Playing the platform
 * (rather than observing a real one) is what lets the kit provoke the situations the rules are about: a registry
 * that forgot the agent, one that does not answer, a task closed under the agent's feet.
 */
export class StandInPlatform {
  readonly observations: Observation[] = [];
  heartbeatMode: HeartbeatMode = 'answer';
  /** Tasks the kit has canceled: reports on them are refused with INVALID_STATE, as the scheduler does. */
  readonly closedTasks = new Set<string>();
  private readonly ids = new Map<string, string>();
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly connection: NatsConnection,
    readonly ttlSeconds: number,
  ) {}

  /**
   * Serves both ways an agent acts: the services' subjects (an agent without an identity) and its own
   * `ioa.agent.<id>.…` subjects (an agent with one), where the subject names the actor as the platform reads it.
   */
  async open(): Promise<void> {
    const serve = (shared: { subject: string }, own: { subject: string }, handler: (message: Msg) => void) => {
      for (const subject of [shared.subject, own.subject]) {
        this.subscriptions.push(
          this.connection.subscribe(subject, { callback: (_error, message) => handler(message) }),
        );
      }
    };
    serve(RegisterAgentV1, RegisterOwnAgentV1, (message) => this.onRegister(message));
    serve(HeartbeatAgentV1, HeartbeatOwnAgentV1, (message) => this.onHeartbeat(message));
    serve(ReportTaskV1, ReportOwnTaskV1, (message) => this.onReport(message));
    serve(ProposeMoveV1, ProposeOwnMoveV1, (message) => this.onMove(message));
    await this.connection.flush();
  }

  close(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }

  /** The id the kit gave the agent of this name (the same on every registration, as the registry does). */
  idOf(name: string): string | undefined {
    return this.ids.get(name);
  }

  of(kind: Observation['kind'], since = 0): Observation[] {
    return this.observations.filter((observation) => observation.kind === kind && observation.at >= since);
  }

  private record(kind: Observation['kind'], message: Msg): Record<string, unknown> | undefined {
    let body: unknown;
    try {
      body = decodeJson(message.data);
    } catch (error) {
      this.observations.push({ at: Date.now(), kind, body: {}, answer: 'MALFORMED_PAYLOAD' });
      respondError(message, error);
      return undefined;
    }
    const object = typeof body === 'object' && body !== null ? { ...(body as Record<string, unknown>) } : {};
    // A subject without a `*` in the actor's place names nobody: the services' subjects.
    const actor = message.subject.startsWith('ioa.agent.')
      ? actorOfSubject(OWN_SUBJECTS[kind], message.subject)
      : undefined;
    // On its own subject the actor is the subject's agent: an absent actor field means it.
    if (actor !== undefined) {
      for (const field of OWN_SUBJECTS[kind].actor?.payloadFields ?? []) object[field] ??= actor;
    }
    this.observations.push({ at: Date.now(), kind, body: object, answer: 'ok', ...(actor ? { actor } : {}) });
    return object;
  }

  private answer(message: Msg, error: ContractError | undefined, data?: unknown): void {
    const last = this.observations.at(-1);
    if (error) {
      if (last) last.answer = error.code;
      respondError(message, error);
    } else {
      respondOk(message, data);
    }
  }

  private onRegister(message: Msg): void {
    const body = this.record('register', message);
    if (!body) return;
    const name = typeof body.name === 'string' ? body.name : 'unnamed';
    const created = !this.ids.has(name);
    // An agent with an identity registers under its identity's id, as the registry does.
    const actor = this.observations.at(-1)?.actor;
    if (created || actor !== undefined) this.ids.set(name, actor ?? randomUUID());
    const now = new Date().toISOString();
    const agent = {
      ...(body as object),
      id: this.ids.get(name)!,
      status: 'online',
      revision: 1,
      registeredAt: now,
      updatedAt: now,
      lastSeenAt: now,
    } as AgentCardV1;
    const reply: RegisterAgentV1Response = { agent, created, heartbeatTtlSeconds: this.ttlSeconds };
    this.answer(message, undefined, reply);
  }

  private onHeartbeat(message: Msg): void {
    const body = this.record('heartbeat', message);
    if (!body) return;
    const known = [...this.ids.values()].includes(String(body.id));
    if (this.heartbeatMode === 'silent') {
      const last = this.observations.at(-1);
      if (last) last.answer = 'unanswered';
      return;
    }
    if (!known || this.heartbeatMode === 'not-found-once') {
      if (known) this.heartbeatMode = 'answer';
      this.answer(message, ContractError.notFound('Agent', String(body.id)));
      return;
    }
    this.answer(message, undefined, { status: 'online', heartbeatTtlSeconds: this.ttlSeconds });
  }

  private onReport(message: Msg): void {
    const body = this.record('report', message);
    if (!body) return;
    const taskId = String(body.taskId);
    if (this.closedTasks.has(taskId)) {
      this.answer(message, new ContractError('INVALID_STATE', `Task ${taskId} is canceled: stop working on it`));
      return;
    }
    const now = new Date().toISOString();
    this.answer(message, undefined, {
      id: taskId,
      state: body.state,
      result: body.state === 'completed' ? (body.content ?? null) : null,
      statusMessage: body.state === 'completed' ? null : (body.content ?? null),
      updatedAt: now,
    });
  }

  private onMove(message: Msg): void {
    const body = this.record('move', message);
    if (!body) return;
    this.answer(message, undefined, { message: { groupId: body.groupId, type: body.type, content: body.content } });
  }
}
