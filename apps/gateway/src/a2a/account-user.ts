import type { User } from '@a2a-js/sdk/server';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { Principal } from '@ioa/contracts';
import type { RequestOptions } from '@ioa/messaging';

/**
 * The A2A caller as the SDK knows it: its user name is the account id, so the SDK's task store keeps each
 * account's tasks apart (its `owner` column), and the principal goes with every goal request the facade makes.
 */
export class AccountUser implements User {
  constructor(readonly principal: Principal) {}

  get isAuthenticated(): boolean {
    return true;
  }

  get userName(): string {
    return this.principal.accountId;
  }
}

/** Request options that act as the A2A caller (`Ioa-Principal`), or none for a context without one. */
export function callerOptions(context: ServerCallContext | undefined): RequestOptions {
  const user = context?.user;
  return user instanceof AccountUser
    ? { principal: { accountId: user.principal.accountId, role: user.principal.role } }
    : {};
}
