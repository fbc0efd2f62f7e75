/**
 * The shape of a published subject. Every NATS subject of the platform is declared once, as one of these
 * descriptors, and services, clients and the JSON Schema generator all read it from here.
 */

/** A class constructor: payloads are classes so that class-validator can check them at every boundary. */
export type PayloadClass<T = unknown> = new (...args: never[]) => T;

/** Which bounded context owns a subject (it is the second token of the subject). */
export type ContractOwner =
  'registry' | 'discovery' | 'chat' | 'scheduler' | 'agent' | 'gateway' | 'agent-host' | 'adapters';

/**
 * Where a request says who acts. The acting agent is the subject token that only that agent may publish on (the
 * broker enforces `ioa.agent.<its id>.…`), never a field the sender fills: a payload field that repeats the actor is
 * filled from the subject when absent and refused (FORBIDDEN) when it names someone else.
 */
export interface ActorDeclaration {
  /** Index of the subject token that is the acting agent's id (`ioa.agent.<id>.…` is 2). */
  readonly subjectToken: number;
  /** Payload fields that name the actor. */
  readonly payloadFields: readonly string[];
}

export interface RequestContract<Request, Response> {
  readonly kind: 'request';
  /** WIRE CONSTANT: never change a published subject; publish a new version instead. */
  readonly subject: string;
  /**
   * The service that serves the subject (and may subscribe to it). For `ioa.agent.*.…` subjects that an agent
   * serves itself (its tasks), `agent`; for those an agent acts on (its heartbeat, moves, reports), the service
   * that serves them.
   */
  readonly owner: ContractOwner;
  readonly request: PayloadClass<Request>;
  readonly response: PayloadClass<Response>;
  readonly summary: string;
  /** Contract version in which this subject first appeared. */
  readonly since: string;
  /** Present on subjects where the subject says who acts. */
  readonly actor?: ActorDeclaration;
}

export interface EventContract<Payload> {
  readonly kind: 'event';
  /** WIRE CONSTANT: never change a published subject; publish a new version instead. */
  readonly subject: string;
  readonly owner: ContractOwner;
  readonly payload: PayloadClass<Payload>;
  readonly summary: string;
  readonly since: string;
  /**
   * JetStream stream that stores this event, for events whose loss would corrupt a consumer's state.
   * Undefined means plain core NATS (fire and forget).
   */
  readonly stream?: string;
}

export type AnyContract = RequestContract<unknown, unknown> | EventContract<unknown>;

/**
 * Subjects are dotted, lowercase, hierarchical and end in a version: `ioa.<owner>.<entity>.<verb>.v<N>`.
 * A `*` token is a per-recipient address (for example the agent id in `ioa.agent.*.task.v1`): senders fill it in
 * with `subjectFor`, and the recipient subscribes to its own concrete subject.
 */
export const SUBJECT_PATTERN = /^ioa(\.([a-z0-9-]+|\*))+\.v[0-9]+$/;

/** The concrete subject of an addressed contract: replaces its `*` token with the recipient's id. */
export function subjectFor(contract: { subject: string }, recipientId: string): string {
  if (!/^[a-z0-9-]+$/.test(recipientId)) throw new Error(`"${recipientId}" cannot be used as a subject token`);
  if (!contract.subject.includes('*')) throw new Error(`${contract.subject} is not an addressed subject`);
  return contract.subject.replace('*', recipientId);
}

function assertSubject(subject: string): void {
  if (!SUBJECT_PATTERN.test(subject)) {
    throw new Error(
      `Invalid subject "${subject}": subjects are lowercase, dotted, start with "ioa." and end in ".v<N>"`,
    );
  }
}

export function requestContract<Request, Response>(
  definition: Omit<RequestContract<Request, Response>, 'kind'>,
): RequestContract<Request, Response> {
  assertSubject(definition.subject);
  if (definition.actor && definition.subject.split('.')[definition.actor.subjectToken] !== '*') {
    throw new Error(`${definition.subject}: the actor's token ${definition.actor.subjectToken} must be a "*"`);
  }
  return Object.freeze({ kind: 'request', ...definition });
}

/** The agent a subject names as the actor (`ioa.agent.<id>.heartbeat.v1` → `<id>`), for a contract that has one. */
export function actorOfSubject(contract: { actor?: ActorDeclaration }, subject: string): string | undefined {
  return contract.actor ? subject.split('.')[contract.actor.subjectToken] : undefined;
}

export function eventContract<Payload>(definition: Omit<EventContract<Payload>, 'kind'>): EventContract<Payload> {
  assertSubject(definition.subject);
  return Object.freeze({ kind: 'event', ...definition });
}

/** The request type a contract carries. */
export type RequestOf<C> = C extends RequestContract<infer Request, unknown> ? Request : never;
/** The response type a contract carries. */
export type ResponseOf<C> = C extends RequestContract<unknown, infer Response> ? Response : never;
/** The payload type an event contract carries. */
export type PayloadOf<C> = C extends EventContract<infer Payload> ? Payload : never;
