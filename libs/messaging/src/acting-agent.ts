import { ALL_CONTRACTS, actorOfSubject, ContractError, type RequestContract } from '@ioa/contracts';
import { isUUID } from 'class-validator';
import { RefusedPayload } from './wire.js';

/** The longest part of a refused field's value quoted back: enough to recognise it, never a large echo. */
const QUOTED_VALUE_CHARS = 80;

/**
 * Who acts comes from the subject, never from a field the sender fills: the one place that applies a contract's
 * `actor` declaration, before validation, for both ways in (the Nest transport's deserializer and
 * `ContractResponder`). A payload field that names the actor is filled with the subject's agent when absent; one
 * that names another agent turns the body into a FORBIDDEN refusal. A handler of such a contract can therefore read
 * the actor from the payload field (or with `actingAgentOf`) and trust it as far as it trusts the broker's
 * permissions.
 */
export function bodyWithActor(
  contract: Pick<RequestContract<unknown, unknown>, 'actor'>,
  subject: string,
  body: unknown,
): unknown {
  const actor = actorOfSubject(contract, subject);
  if (actor === undefined || body instanceof RefusedPayload) return body;
  // Agent ids are UUIDs everywhere (an identity's JWT is named by one); a broker without authentication would let
  // any token through.
  if (!isUUID(actor)) {
    const quoted = JSON.stringify(actor).slice(0, QUOTED_VALUE_CHARS);
    return new RefusedPayload(
      new ContractError('VALIDATION_FAILED', `The subject's agent id ${quoted} is not a UUID`, [
        { property: 'subject', constraints: ['the agent token of the subject must be a UUID'] },
      ]),
    );
  }
  if (!isPlainObject(body)) return body;
  const filled: Record<string, unknown> = { ...body };
  for (const field of contract.actor?.payloadFields ?? []) {
    const named = filled[field];
    if (named === undefined || named === null) {
      filled[field] = actor;
    } else if (named !== actor) {
      const quoted = JSON.stringify(named).slice(0, QUOTED_VALUE_CHARS);
      return new RefusedPayload(
        new ContractError('FORBIDDEN', `${field} ${quoted} does not match the sending agent ${actor}`, {
          field,
          actor,
        }),
      );
    }
  }
  return filled;
}

/** The acting agent of a message on an actor contract's subject (`ioa.agent.<id>.…`). */
export function actingAgentOf(
  contract: Pick<RequestContract<unknown, unknown>, 'actor' | 'subject'>,
  subject: string,
): string {
  const actor = actorOfSubject(contract, subject);
  if (actor === undefined) throw new Error(`${contract.subject} does not name an actor`);
  return actor;
}

const ACTOR_CONTRACTS: ReadonlyMap<string, RequestContract<unknown, unknown>> = new Map(
  ALL_CONTRACTS.filter(
    (contract): contract is RequestContract<unknown, unknown> => contract.kind === 'request' && !!contract.actor,
  ).map((contract) => [contract.subject, contract]),
);

/** The actor contract served under `pattern` (a handler's subject, with its `*`), if it is one. */
export function actorContractOf(pattern: string): RequestContract<unknown, unknown> | undefined {
  return ACTOR_CONTRACTS.get(pattern);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RefusedPayload);
}
