import 'reflect-metadata';
import type { LogLevel } from '@nestjs/common';
import { VersioningType } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { PAYLOAD_BOUNDS } from '@ioa/contracts';
import { mountA2aFacade } from './a2a/a2a.routes.js';
import { GatewayModule } from './gateway.module.js';
import { HttpExceptionFilter } from './http/http-exception.filter.js';
import { setUpOpenApi } from './http/openapi.js';
import { createValidationPipe } from './http/validation.js';
import { mountMcpEndpoint } from './mcp/mcp.routes.js';
import { mountConsole } from './console/console.static.js';
import { gatewayConfig, type GatewayConfig } from './gateway.config.js';

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
  // The same body limit as on NATS; a larger body is a 413 before anything parses it.
  app.useBodyParser('json', { limit: PAYLOAD_BOUNDS.maxBytes });
  // `/v1/agents`: the version is part of the route, so v2 routes can live beside v1 ones.
  app.enableVersioning({ type: VersioningType.URI });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter(app.get(HttpAdapterHost)));
  setUpOpenApi(app);
  // The A2A and MCP endpoints are the protocol SDKs' own handlers, mounted beside Nest's routes.
  mountA2aFacade(app);
  mountMcpEndpoint(app);
  mountConsole(app, app.get<GatewayConfig>(gatewayConfig.KEY).consoleDir);
  return app;
}
