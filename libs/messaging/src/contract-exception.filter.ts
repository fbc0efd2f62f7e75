import { type ArgumentsHost, Catch, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';
import type { ErrorBody } from '@ioa/contracts';
import { replyErrorOf } from './reply-encoding.js';

/**
 * The Nest transport's place where exceptions become wire errors on NATS (with the same mapping as
 * `ContractResponder`). Handlers throw `ContractError` with a code; anything else is a bug, logged with its stack
 * and answered as INTERNAL (without leaking internals to the caller).
 */
@Catch()
export class ContractExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger(ContractExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): Observable<ErrorBody> {
    const { body, internal } = replyErrorOf(exception);
    if (internal) {
      const subject = host.switchToRpc().getContext<{ getSubject?: () => string }>()?.getSubject?.();
      this.logger.error(`Unhandled error on ${subject ?? 'unknown subject'}`, (exception as Error)?.stack);
    }
    return throwError(() => body);
  }
}
