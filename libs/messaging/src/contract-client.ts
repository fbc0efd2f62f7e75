import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { errors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  ContractError,
  HEADER_IDEMPOTENCY_KEY,
  HEADER_PRINCIPAL,
  HEADER_TRACEPARENT,
  isErrorBody,
  type Principal,
  type ReplyEnvelope,
  type RequestContract,
} from '@ioa/contracts';
import { natsConfig } from '@ioa/config';
import { NATS_CONNECTION } from './nats-connection.js';
import { decodeJson, encodeJson, MalformedPayload } from './wire.js';
import { newTraceparent } from './trace.js';

export interface RequestOptions {
  /** Overrides the configured request timeout. */
  timeoutMs?: number;
  /** Sent as `Idempotency-Key`: the receiver does the work once however often the request is retried. */
  idempotencyKey?: string;
  /** Continue this trace instead of starting a new one. */
  traceparent?: string;
  /** The account the request acts for, sent as `Ioa-Principal` (the gateway's authenticated REST caller). */
  principal?: Principal;
}

/**
 * Sends contract requests over plain NATS request/reply and returns the reply's `data`, or throws the reply's
 * error as a `ContractError`. A missing responder is UNAVAILABLE and a silent one TIMEOUT: callers never hang.
 */
export async function requestContract<Request, Response>(
  connection: NatsConnection,
  contract: RequestContract<Request, Response>,
  payload: Request,
  options: RequestOptions & { timeoutMs: number },
): Promise<Response> {
  const headers = natsHeaders();
  headers.set(HEADER_TRACEPARENT, options.traceparent ?? newTraceparent());
  if (options.idempotencyKey) headers.set(HEADER_IDEMPOTENCY_KEY, options.idempotencyKey);
  if (options.principal) {
    headers.set(
      HEADER_PRINCIPAL,
      JSON.stringify({ accountId: options.principal.accountId, role: options.principal.role }),
    );
  }
  let reply;
  try {
    reply = await connection.request(contract.subject, encodeJson(payload), { timeout: options.timeoutMs, headers });
  } catch (error) {
    throw translateRequestError(contract.subject, options.timeoutMs, error);
  }
  const envelope = decodeJson(reply.data);
  if (
    envelope instanceof MalformedPayload ||
    typeof envelope !== 'object' ||
    envelope === null ||
    !('ok' in envelope)
  ) {
    throw new ContractError('INTERNAL', `The reply on ${contract.subject} is not a contract envelope`);
  }
  const typed = envelope as ReplyEnvelope<Response>;
  if (typed.ok) return typed.data;
  throw isErrorBody(typed.error)
    ? ContractError.fromBody(typed.error)
    : new ContractError('INTERNAL', `Malformed error reply on ${contract.subject}`);
}

function translateRequestError(subject: string, timeoutMs: number, error: unknown): ContractError {
  const cause = error instanceof errors.RequestError ? (error.cause ?? error) : error;
  if (cause instanceof errors.NoRespondersError || (error instanceof errors.RequestError && error.isNoResponders())) {
    return new ContractError('UNAVAILABLE', `No service is answering ${subject}`, { subject });
  }
  if (cause instanceof errors.TimeoutError) {
    return new ContractError('TIMEOUT', `No reply on ${subject} within ${timeoutMs} ms`, { subject, timeoutMs });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ContractError('UNAVAILABLE', `Request on ${subject} failed: ${message}`, { subject });
}

/** The typed client services inject: `client.request(RegisterAgentV1, payload)`. */
@Injectable()
export class ContractClient {
  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(natsConfig.KEY) private readonly config: ConfigType<typeof natsConfig>,
  ) {}

  request<Request, Response>(
    contract: RequestContract<Request, Response>,
    payload: Request,
    options: RequestOptions = {},
  ): Promise<Response> {
    return requestContract(this.connection, contract, payload, {
      ...options,
      timeoutMs: options.timeoutMs ?? this.config.requestTimeoutMs,
    });
  }
}
