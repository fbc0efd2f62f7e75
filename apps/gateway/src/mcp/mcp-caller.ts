import type { AuthInfo, McpRequestContext } from '@modelcontextprotocol/server';
import { ContractError, type Principal } from '@ioa/contracts';
import type { AuthenticatedPrincipal } from '../auth/principal.js';

/**
 * The MCP SDK's pass-through `authInfo` for an authenticated caller: the gateway checked the credentials itself
 * (`requireCredentials`); the SDK only carries the result to the server it builds for the request.
 */
export function authInfoOf(principal: AuthenticatedPrincipal): AuthInfo {
  return {
    token: '',
    clientId: principal.accountId,
    scopes: [principal.role],
    extra: { principal: { accountId: principal.accountId, role: principal.role } },
  };
}

export function principalOfAuthInfo(context: McpRequestContext): Principal {
  const principal = context.authInfo?.extra?.principal as Principal | undefined;
  if (!principal) throw new ContractError('UNAUTHENTICATED', 'The MCP request was not authenticated');
  return principal;
}
