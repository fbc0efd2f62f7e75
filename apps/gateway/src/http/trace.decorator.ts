import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { HEADER_TRACEPARENT } from '@ioa/contracts';
import { childTraceparent, type RequestOptions } from '@ioa/messaging';
import type { AuthenticatedRequest } from '../auth/principal.js';

/**
 * Contract request options for the NATS requests a route makes on the caller's behalf. They continue the caller's
 * W3C trace (the HTTP request's `traceparent` becomes the parent of the NATS request's; without one, or with a
 * malformed one, a new trace starts) and carry who the caller is: the principal the authentication guard found
 * travels as `Ioa-Principal`, so services scope what they answer to the caller's account. Every route takes its
 * options from here, which makes this the one place the gateway forwards the principal.
 */
export const TraceContext = createParamDecorator((_data: unknown, context: ExecutionContext): RequestOptions => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  const header = request.headers[HEADER_TRACEPARENT];
  const traceparent = childTraceparent(typeof header === 'string' ? header : undefined);
  const principal = request.principal;
  return principal
    ? { traceparent, principal: { accountId: principal.accountId, role: principal.role } }
    : { traceparent };
});
