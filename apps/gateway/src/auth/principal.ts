import type { Principal } from '@ioa/contracts';

/** Who made a REST call, as the authentication guard found out; forwarded to services as `Ioa-Principal`. */
export interface AuthenticatedPrincipal extends Principal {
  via: 'api-key' | 'oidc';
  /** The API key's id, when the caller used one. */
  keyId?: string;
}

/** The built-in admin account that IOA_ADMIN_API_KEY belongs to. */
export const LOCAL_ADMIN_ACCOUNT_ID = 'local-admin';

/** The Express request as the guard leaves it. */
export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  principal?: AuthenticatedPrincipal;
}

export function isAdmin(principal: Principal | undefined): boolean {
  return principal?.role === 'admin';
}
