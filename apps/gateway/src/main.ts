import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { createGatewayApp } from './gateway.app.js';
import { gatewayConfig } from './gateway.config.js';
import { DOCS_PATH } from './http/openapi.js';

const app = await createGatewayApp();
app.enableShutdownHooks();
const config = app.get<ConfigType<typeof gatewayConfig>>(gatewayConfig.KEY);
await app.listen(config.port, config.host);
const url = (await app.getUrl()).replace('[::1]', 'localhost');
new Logger('Gateway').log(`Gateway listening on ${url} (OpenAPI UI at ${url}/${DOCS_PATH})`);
