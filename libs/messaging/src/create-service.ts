import type { INestApplication, INestMicroservice, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { natsConfig } from '@ioa/config';
import { NatsJsonDeserializer } from './nats-json.deserializer.js';
import { NatsJsonSerializer } from './nats-json.serializer.js';
import { ContractValidationPipe } from './contract-validation.pipe.js';
import { ContractExceptionFilter } from './contract-exception.filter.js';

export interface ServiceOptions {
  /** Also the NATS queue group: replicas of a service share requests and events. */
  name: string;
  logger?: LogLevel[] | false;
}

/** NATS transport options speaking the public protocol: plain JSON, the service's queue group. */
export function natsTransportOptions(name: string): MicroserviceOptions {
  const config = natsConfig();
  return {
    transport: Transport.NATS,
    options: {
      servers: config.servers,
      name: `${name}-server`,
      queue: name,
      serializer: new NatsJsonSerializer(),
      deserializer: new NatsJsonDeserializer(),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      gracefulShutdown: true,
      gracePeriod: 200,
    },
  };
}

function logLevels(options: ServiceOptions): LogLevel[] | false {
  return options.logger ?? ['log', 'warn', 'error', 'fatal'];
}

/** A NATS-only service (registry, discovery, chat, scheduler, agent-host), listening and ready. */
export async function createService(module: Type, options: ServiceOptions): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    ...natsTransportOptions(options.name),
    logger: logLevels(options),
  });
  app.useGlobalPipes(new ContractValidationPipe());
  app.useGlobalFilters(new ContractExceptionFilter());
  app.enableShutdownHooks();
  await app.listen();
  return app;
}

/** Attaches the NATS transport to an HTTP application (the gateway), with the same pipes and filter. */
export function connectNatsTransport(app: INestApplication, name: string): void {
  app.connectMicroservice<MicroserviceOptions>(natsTransportOptions(name), { inheritAppConfig: false });
}
