import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { ContractError } from '@ioa/contracts';
import { contractErrorToHttp, httpExceptionToHttp, INTERNAL_ERROR_BODY, type HttpErrorBody } from './http-error.js';

/** Seconds a client should wait before retrying a 503: services restart or reconnect within about that. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The gateway's only exception filter. Services throw `ContractError` (it arrives through `ContractClient`), the
 * validation pipe throws `ContractError` too, and Nest's router throws `HttpException`; all leave as one JSON shape.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpExceptionFilter.name);

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const body = this.toBody(exception);
    const { httpAdapter } = this.adapterHost;
    const response: unknown = host.switchToHttp().getResponse();
    if (body.statusCode === Number(HttpStatus.SERVICE_UNAVAILABLE)) {
      httpAdapter.setHeader(response, 'Retry-After', String(RETRY_AFTER_SECONDS));
    }
    httpAdapter.reply(response, body, body.statusCode);
  }

  private toBody(exception: unknown): HttpErrorBody {
    if (exception instanceof ContractError) {
      const body = contractErrorToHttp(exception);
      if (exception.code === 'INTERNAL') this.logger.warn(`A service failed: ${exception.message}`);
      return body;
    }
    if (exception instanceof HttpException) return httpExceptionToHttp(exception);
    this.logger.error('Unhandled error in the gateway', exception instanceof Error ? exception.stack : exception);
    return INTERNAL_ERROR_BODY;
  }
}
