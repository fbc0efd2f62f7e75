/**
 * NATS headers the platform reads and writes. WIRE CONSTANTS.
 * - `traceparent` follows W3C Trace Context, so traces cross NATS and HTTP unchanged.
 * - `Idempotency-Key` lets a sender retry a command safely: a service that already handled the key answers
 *   with the first result instead of doing the work twice.
 */
export const HEADER_TRACEPARENT = 'traceparent';
export const HEADER_IDEMPOTENCY_KEY = 'Idempotency-Key';

/** An `Idempotency-Key` is 1-200 printable ASCII characters without spaces, like the keys clients generate. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;
export const IDEMPOTENCY_KEY_RULE = 'Idempotency-Key must be 1-200 printable ASCII characters without spaces';
/** JetStream's de-duplication header: events carry a stable id so that a re-publish is dropped by the stream. */
export const HEADER_MESSAGE_ID = 'Nats-Msg-Id';

/**
 * Who a request acts for, as `{"accountId": "…", "role": "admin" | "member"}` (JSON). Set only by the gateway (from
 * the authenticated REST principal) and by services acting on behalf of an account (a sub-goal inherits its
 * parent's); the broker lets no agent publish on the service subjects that read it, which is why services may trust
 * it. Absent means a platform service acting for itself.
 */
export const HEADER_PRINCIPAL = 'Ioa-Principal';

/** Roles of a person's account: an admin sees and acts on every account's goals, agents and groups. */
export const PRINCIPAL_ROLES = ['admin', 'member'] as const;
export type PrincipalRole = (typeof PRINCIPAL_ROLES)[number];

/** The parsed `Ioa-Principal` header. */
export interface Principal {
  accountId: string;
  role: PrincipalRole;
}
