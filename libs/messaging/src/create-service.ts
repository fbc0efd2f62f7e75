import type { INestApplication, INestMicroservice, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import { natsConfig } from '@ioa/config';
import { NATS_CONNECTION, natsIdentityOptions } from './nats-connection.js';
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
export function natsTransportOptions(
  name: string,
  serializer: NatsJsonSerializer = new NatsJsonSerializer(),
): MicroserviceOptions {
  const config = natsConfig();
  return {
    transport: Transport.NATS,
    options: {
      servers: config.servers,
      name: `${name}-server`,
      // The service's own NATS user (least privilege) when NATS_CREDENTIALS_DIR is set.
      ...natsIdentityOptions(config.credentialsDir, name),
      queue: name,
      serializer,
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

function maxPayloadOf(app: INestMicroservice): number | undefined {
  try {
    return app.get<NatsConnection>(NATS_CONNECTION, { strict: false }).info?.max_payload;
  } catch {
    return undefined; // a service without MessagingModule keeps NATS's default limit
  }
}

/** A NATS-only service (registry, discovery, chat, scheduler, agent-host), listening and ready. */
export async function createService(module: Type, options: ServiceOptions): Promise<INestMicroservice> {
  const serializer = new NatsJsonSerializer();
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    ...natsTransportOptions(options.name, serializer),
    logger: logLevels(options),
  });
  app.useGlobalPipes(new ContractValidationPipe());
  app.useGlobalFilters(new ContractExceptionFilter());
  app.enableShutdownHooks();
  await app.listen();
  // Replies are kept under the broker's max_payload; the service's own connection reads it from the same broker.
  serializer.limitTo(maxPayloadOf(app));
  return app;
}

/** Attaches the NATS transport to an HTTP application (the gateway), with the same pipes and filter. */
export function connectNatsTransport(app: INestApplication, name: string): NatsJsonSerializer {
  const serializer = new NatsJsonSerializer();
  app.connectMicroservice<MicroserviceOptions>(natsTransportOptions(name, serializer), { inheritAppConfig: false });
  return serializer;
}
