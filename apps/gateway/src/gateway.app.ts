import 'reflect-metadata';
import type { LogLevel } from '@nestjs/common';
import { VersioningType } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { GatewayModule } from './gateway.module.js';
import { HttpExceptionFilter } from './http/http-exception.filter.js';
import { setUpOpenApi } from './http/openapi.js';
import { createValidationPipe } from './http/validation.js';

export interface GatewayAppOptions {
  logger?: LogLevel[] | false;
}

/**
 * The gateway application, configured but not yet listening. `main.ts` and the tests both build it here, so the
 * tests exercise exactly the pipes, filter, versioning and OpenAPI document that production serves.
 */
export async function createGatewayApp(options: GatewayAppOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(GatewayModule, {
    logger: options.logger ?? ['log', 'warn', 'error', 'fatal'],
  });
  app.disable('x-powered-by');
  // `/v1/agents`: the version is part of the route, so v2 routes can live beside v1 ones.
  app.enableVersioning({ type: VersioningType.URI });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter(app.get(HttpAdapterHost)));
  setUpOpenApi(app);
  return app;
}
