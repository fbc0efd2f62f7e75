import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { NatsConnection } from '@nats-io/transport-node';
import { natsConfig } from '@ioa/config';
import { connectNats, NATS_CONNECTION, natsIdentityOptions } from './nats-connection.js';
import { ContractClient } from './contract-client.js';
import { ContractResponder } from './contract-responder.js';
import { EventBus } from './event-bus.js';

/**
 * One NATS connection per service for everything the service sends: typed requests (`ContractClient`) and
 * events (`EventBus`). Incoming requests arrive through the Nest NATS transport set up in `createService`, or, on
 * subjects known only at run time, through `ContractResponder`.
 */
@Global()
@Module({})
export class MessagingModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {}

  static forService(serviceName: string): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        {
          provide: NATS_CONNECTION,
          inject: [natsConfig.KEY],
          useFactory: (config: ConfigType<typeof natsConfig>) =>
            connectNats(
              config.servers,
              `${serviceName}-client`,
              natsIdentityOptions(config.credentialsDir, serviceName),
            ),
        },
        ContractClient,
        ContractResponder,
        EventBus,
      ],
      exports: [NATS_CONNECTION, ContractClient, ContractResponder, EventBus],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.connection.isClosed()) return;
    // Draining needs the broker; when it is unreachable, close instead of reconnecting forever.
    await this.connection.drain().catch(() => this.connection.close());
  }
}
