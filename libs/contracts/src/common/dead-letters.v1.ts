import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString } from 'class-validator';
import { requestContract, SUBJECT_PATTERN, type ContractOwner } from './contract.js';
import { IsIntegerIn, IsNested } from './validation.js';

/**
 * Dead letters: stream events that a consumer gave up on. A consumer retries a failing handler with backoff for a
 * bounded number of deliveries; after the last one (or at once, for a payload that fails validation) the event is
 * copied here with why it failed, the original is acknowledged, and the consumer moves on. An operator lists them
 * and replays them once the cause is fixed.
 *
 * The stored message keeps the original body byte for byte (so a replay sends exactly what was sent) and carries
 * the facts about the failure in headers, which is why the recorded message is not a JSON contract event.
 */

/** WIRE CONSTANT: the JetStream stream that keeps every service's dead letters. */
export const DEAD_LETTERS_STREAM = 'IOA_DEAD_LETTERS';

/**
 * WIRE CONSTANT: the subjects of `DEAD_LETTERS_STREAM`: `ioa.<service>.dead-letter.<consumer>.recorded.v1`. One
 * token longer than the list/replay request subjects, so the stream never captures a request.
 */
export const DEAD_LETTER_SUBJECTS = 'ioa.*.dead-letter.*.recorded.v1';

/** The subject a dead letter of `service`'s consumer `consumerToken` is stored on (one subject per consumer). */
export function deadLetterSubject(service: string, consumerToken: string): string {
  const subject = `ioa.${service}.dead-letter.${consumerToken}.recorded.v1`;
  if (!SUBJECT_PATTERN.test(subject)) throw new Error(`"${subject}" is not a valid dead-letter subject`);
  return subject;
}

/** Subjects of all dead letters of one service's consumers. */
export function deadLetterSubjectsOf(service: string): string {
  return `ioa.${service}.dead-letter.*.recorded.v1`;
}

/** WIRE CONSTANTS: headers of a stored dead letter. */
export const DEAD_LETTER_HEADERS = Object.freeze({
  consumer: 'Ioa-Dead-Letter-Consumer',
  subject: 'Ioa-Dead-Letter-Subject',
  streamSequence: 'Ioa-Dead-Letter-Stream-Sequence',
  deliveries: 'Ioa-Dead-Letter-Deliveries',
  reason: 'Ioa-Dead-Letter-Reason',
  error: 'Ioa-Dead-Letter-Error',
  at: 'Ioa-Dead-Letter-At',
});

/** `handler_failed`: the handler threw on every delivery. `invalid_payload`: the body failed validation. */
export const DEAD_LETTER_REASONS = ['handler_failed', 'invalid_payload'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** At most this many characters of the error are kept with a dead letter. */
export const MAX_DEAD_LETTER_ERROR_LENGTH = 1_000;
/** A listed dead letter shows at most this many characters of its body (a replay sends all of it). */
export const MAX_LISTED_PAYLOAD_LENGTH = 10_000;

/** One dead letter. @since 1 */
export class DeadLetterV1 {
  /** Its sequence in `IOA_DEAD_LETTERS`: the id to replay it by. */
  @IsInt()
  id: number;

  /** The service whose consumer gave up. */
  @IsString()
  service: string;

  /** The durable JetStream consumer that gave up on it. */
  @IsString()
  consumer: string;

  /** The subject the event was published on (a replay publishes it there again). */
  @IsString()
  subject: string;

  /** Its sequence in its original stream. */
  @IsInt()
  streamSequence: number;

  /** How many times it was delivered before the consumer gave up. */
  @IsInt()
  deliveries: number;

  @IsIn(DEAD_LETTER_REASONS)
  reason: DeadLetterReason;

  /** The last error, at most `MAX_DEAD_LETTER_ERROR_LENGTH` characters. */
  @IsString()
  error: string;

  @IsISO8601()
  deadLetteredAt: string;

  /** The body as text, at most `MAX_LISTED_PAYLOAD_LENGTH` characters (see `payloadTruncated`). */
  @IsString()
  payload: string;

  @IsBoolean()
  payloadTruncated: boolean;

  /** Size of the original body. */
  @IsInt()
  payloadBytes: number;
}

/** @since 1 */
export class ListDeadLettersV1Request {
  /** Dead letters with a larger id than this (0 = from the oldest). */
  @IsOptional()
  @IsIntegerIn(0)
  afterId: number = 0;

  @IsOptional()
  @IsIntegerIn(1, 500)
  limit: number = 100;
}

/** @since 1 */
export class ListDeadLettersV1Response {
  /** Oldest first. */
  @IsNested(() => DeadLetterV1, { each: true })
  deadLetters: DeadLetterV1[];

  /** How many dead letters this service has in all. */
  @IsInt()
  total: number;
}

/** @since 1 */
export class ReplayDeadLetterV1Request {
  @IsIntegerIn(1)
  id: number;
}

/** @since 1 */
export class ReplayDeadLetterV1Response {
  @IsInt()
  id: number;

  /** Where the original body was published again. */
  @IsString()
  subject: string;

  /** The replay's own JetStream message id (a retried replay is de-duplicated by it). */
  @IsString()
  messageId: string;
}

function listContract(owner: ContractOwner) {
  return requestContract<ListDeadLettersV1Request, ListDeadLettersV1Response>({
    subject: `ioa.${owner}.dead-letter.list.v1`,
    owner,
    request: ListDeadLettersV1Request,
    response: ListDeadLettersV1Response,
    summary: `Events the ${owner} service's consumers gave up on, oldest first, with the error and the consumer.`,
    since: '1',
  });
}

function replayContract(owner: ContractOwner) {
  return requestContract<ReplayDeadLetterV1Request, ReplayDeadLetterV1Response>({
    subject: `ioa.${owner}.dead-letter.replay.v1`,
    owner,
    request: ReplayDeadLetterV1Request,
    response: ReplayDeadLetterV1Response,
    summary:
      `Publishes one of the ${owner} service's dead letters again on its original subject (new message id) ` +
      'and removes it. NOT_FOUND when the id is not one of this service\u2019s dead letters.',
    since: '1',
  });
}

export const RegistryListDeadLettersV1 = listContract('registry');
export const RegistryReplayDeadLetterV1 = replayContract('registry');
export const DiscoveryListDeadLettersV1 = listContract('discovery');
export const DiscoveryReplayDeadLetterV1 = replayContract('discovery');
export const ChatListDeadLettersV1 = listContract('chat');
export const ChatReplayDeadLetterV1 = replayContract('chat');
export const SchedulerListDeadLettersV1 = listContract('scheduler');
export const SchedulerReplayDeadLetterV1 = replayContract('scheduler');
export const AgentHostListDeadLettersV1 = listContract('agent-host');
export const AgentHostReplayDeadLetterV1 = replayContract('agent-host');

/** The dead-letter subjects of each service that answers them (every service with a health subject). */
export const DEAD_LETTER_CONTRACTS: Readonly<
  Partial<
    Record<
      ContractOwner,
      {
        list: ReturnType<typeof listContract>;
        replay: ReturnType<typeof replayContract>;
      }
    >
  >
> = Object.freeze({
  registry: { list: RegistryListDeadLettersV1, replay: RegistryReplayDeadLetterV1 },
  discovery: { list: DiscoveryListDeadLettersV1, replay: DiscoveryReplayDeadLetterV1 },
  chat: { list: ChatListDeadLettersV1, replay: ChatReplayDeadLetterV1 },
  scheduler: { list: SchedulerListDeadLettersV1, replay: SchedulerReplayDeadLetterV1 },
  'agent-host': { list: AgentHostListDeadLettersV1, replay: AgentHostReplayDeadLetterV1 },
});
