// class-transformer's @Type in the contract classes needs the Reflect metadata API, loaded before they are.
import 'reflect-metadata';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import {
  ContractError,
  isErrorBody,
  type ErrorBody,
  type PayloadClass,
  type ReplyEnvelope,
  type RequestContract,
} from '@ioa/contracts';

/**
 * The wire protocol as an agent sees it: UTF-8 JSON bodies, `{ok, data}` / `{ok: false, error}` replies, and
 * class-validator checks against the contract classes. Shared by the agent and the conformance kit, which must judge
 * bodies exactly as the platform does.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** The parsed body, or a MALFORMED_PAYLOAD error. An empty body means `{}`, as everywhere on the platform. */
export function decodeJson(data: Uint8Array): unknown {
  const text = decoder.decode(data);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ContractError(
      'MALFORMED_PAYLOAD',
      `The message body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export interface Violation {
  property: string;
  constraints: string[];
}

function flatten(errors: ValidationError[], prefix = ''): Violation[] {
  return errors.flatMap((error) => {
    const property = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ property, constraints: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], property)];
  });
}

/** Every violation of `value` against a contract class (empty when it conforms). Unknown fields are not violations. */
export async function violationsOf(type: PayloadClass<object>, value: unknown): Promise<Violation[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ property: '(body)', constraints: ['the message body must be a JSON object'] }];
  }
  const instance = plainToInstance(type as new () => object, value, { exposeDefaultValues: true });
  return flatten(await validate(instance, { whitelist: true, forbidUnknownValues: false }));
}

/** The payload as an instance of its contract class (defaults applied, unknown fields stripped), or VALIDATION_FAILED. */
export async function parsePayload<T extends object>(type: PayloadClass<T>, value: unknown): Promise<T> {
  const violations = await violationsOf(type, value);
  if (violations.length > 0) {
    const first = violations
      .slice(0, 5)
      .map((violation) => `${violation.property}: ${violation.constraints.join(', ')}`)
      .join('; ');
    throw new ContractError('VALIDATION_FAILED', `Invalid payload: ${first}`, { violations: violations.slice(0, 20) });
  }
  return plainToInstance(type as new () => T, value, { exposeDefaultValues: true });
}

/** Answers a request with the success envelope. */
export function respondOk(message: Msg, data: unknown): void {
  if (message.reply) message.respond(encodeJson({ ok: true, data } satisfies ReplyEnvelope<unknown>));
}

/** Answers a request with the error envelope; anything that is not a ContractError is INTERNAL (message kept). */
export function respondError(message: Msg, error: unknown): void {
  if (!message.reply) return;
  const contractError =
    error instanceof ContractError
      ? error
      : new ContractError('INTERNAL', error instanceof Error ? error.message : String(error));
  message.respond(encodeJson({ ok: false, error: contractError.toBody() } satisfies ReplyEnvelope<never>));
}

/**
 * One request on a contract subject. The reply's `data` on success; a ContractError otherwise: the service's own
 * error, `UNAVAILABLE` when nobody serves the subject, `TIMEOUT` when nobody answered in time (both retryable).
 */
export async function requestOnContract<Request, Response>(
  connection: NatsConnection,
  contract: RequestContract<Request, Response>,
  body: Request,
  options: { timeoutMs: number; subject?: string },
): Promise<Response> {
  const subject = options.subject ?? contract.subject;
  let reply: Msg;
  try {
    reply = await connection.request(subject, encodeJson(body), { timeout: options.timeoutMs });
  } catch (error) {
    throw transportError(subject, error);
  }
  const envelope = decodeJson(reply.data) as Partial<{ ok: boolean; data: Response; error: ErrorBody }>;
  if (envelope.ok === true) return envelope.data as Response;
  if (envelope.ok === false && isErrorBody(envelope.error)) throw ContractError.fromBody(envelope.error);
  throw new ContractError('INTERNAL', `${subject} answered something that is not a reply envelope`);
}

function transportError(subject: string, error: unknown): ContractError {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  if (/no responders|503/i.test(text)) {
    return new ContractError('UNAVAILABLE', `Nobody serves ${subject} at the moment`);
  }
  if (/timeout/i.test(text)) return new ContractError('TIMEOUT', `No answer on ${subject} in time`);
  return new ContractError('UNAVAILABLE', `${subject}: ${text}`);
}
