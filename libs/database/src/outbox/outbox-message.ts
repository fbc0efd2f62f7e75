import { ALL_CONTRACTS, type EventContract } from '@ioa/contracts';

/** An event to publish once the transaction that wrote it commits. */
export interface OutboxMessage {
  contract: EventContract<unknown>;
  payload: unknown;
  /** Stable id of the fact (JetStream's `Nats-Msg-Id`), so a re-publish after a failure is dropped by the stream. */
  messageId: string;
  /** The concrete subject of an addressed contract (`subjectFor(contract, recipientId)`); absent otherwise. */
  subject?: string;
}

/**
 * Typed constructor: the payload must be the contract's payload type. An addressed contract (a `*` token, such as
 * `ioa.agent.*.task-canceled.v1`) needs `subject`, its recipient's concrete subject made with `subjectFor`.
 */
export function outboxMessage<T>(
  contract: EventContract<T>,
  payload: T,
  messageId: string,
  options: { subject?: string } = {},
): OutboxMessage {
  const message: OutboxMessage = { contract, payload, messageId };
  if (options.subject === undefined || options.subject === contract.subject) {
    if (isAddressed(contract)) throw new Error(`${contract.subject} is addressed: pass subjectFor(contract, id)`);
    return message;
  }
  if (!isAddressed(contract) || !subjectMatcher(contract.subject).test(options.subject)) {
    throw new Error(`"${options.subject}" is not a subject of ${contract.subject}`);
  }
  return { ...message, subject: options.subject };
}

/** The subject an outbox message is published on. */
export function subjectOf(message: OutboxMessage): string {
  return message.subject ?? message.contract.subject;
}

function isAddressed(contract: { subject: string }): boolean {
  return contract.subject.includes('*');
}

/**
 * `ioa.agent.*.task.v1` → a pattern matching each recipient's concrete subject, one token per `*` (contract subjects
 * hold only `[a-z0-9-]` tokens, `*` and dots, so nothing else needs escaping).
 */
function subjectMatcher(subject: string): RegExp {
  const tokens = subject.split('.').map((token) => (token === '*' ? '[a-z0-9-]+' : token));
  return new RegExp(`^${tokens.join('\\.')}$`);
}

const EVENT_CONTRACTS = ALL_CONTRACTS.filter(
  (contract): contract is EventContract<unknown> => contract.kind === 'event',
);
const BY_SUBJECT = new Map(EVENT_CONTRACTS.map((contract) => [contract.subject, contract]));
const ADDRESSED = EVENT_CONTRACTS.filter(isAddressed).map((contract) => ({
  contract,
  matcher: subjectMatcher(contract.subject),
}));

/**
 * The event contract an outbox row is published with, found in the catalog by the row's subject; an addressed
 * contract comes back with the row's concrete subject in place of its pattern. Undefined when this version of the
 * service knows no such event (only a rolled-back deployment could have written it).
 */
export function eventContractFor(subject: string): EventContract<unknown> | undefined {
  const exact = BY_SUBJECT.get(subject);
  if (exact) return exact;
  const addressed = ADDRESSED.find((entry) => entry.matcher.test(subject))?.contract;
  return addressed && { ...addressed, subject };
}
