import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { HEADER_TRACEPARENT } from '@ioa/contracts';
import { childTraceparent, type RequestOptions } from '@ioa/messaging';

/**
 * Contract request options that continue the caller's W3C trace: the HTTP request's `traceparent` header becomes
 * the parent of the NATS request's, so one trace spans the HTTP call and the services behind it. Without the
 * header (or with a malformed one) a new trace starts.
 */
export const TraceContext = createParamDecorator((_data: unknown, context: ExecutionContext): RequestOptions => {
  const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
  const header = request.headers[HEADER_TRACEPARENT];
  return { traceparent: childTraceparent(typeof header === 'string' ? header : undefined) };
});
