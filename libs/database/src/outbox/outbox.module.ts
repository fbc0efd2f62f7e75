import {
  type DynamicModule,
  type InjectionToken,
  Module,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common';
import { OUTBOX_OPTIONS, type OutboxOptions } from './outbox.options.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';
import { Transactions } from '../unit-of-work/unit-of-work.js';

/** Options read from other providers, typically the service's `registerAs` configuration. */
export interface OutboxAsyncOptions<Dependencies extends unknown[]> {
  inject: Array<InjectionToken | OptionalFactoryDependency>;
  useFactory: (...dependencies: Dependencies) => OutboxOptions;
}

/**
 * The transactional outbox of one service and its unit of work: `Transactions.run` gives a use case one
 * transaction whose events go to the outbox and are published after commit (by `OutboxRelay`, under the one flush
 * policy stated on `Transactions`). Imported once, by the service's root module beside `DatabaseModule`
 * (which must list `OutboxEventEntity`); global, so every feature module of the service can write events.
 */
@Module({})
export class OutboxModule {
  static forService(options: OutboxOptions): DynamicModule {
    return OutboxModule.withOptions({ provide: OUTBOX_OPTIONS, useValue: options });
  }

  static forServiceAsync<Dependencies extends unknown[]>(options: OutboxAsyncOptions<Dependencies>): DynamicModule {
    return OutboxModule.withOptions({
      provide: OUTBOX_OPTIONS,
      inject: options.inject,
      useFactory: options.useFactory,
    });
  }

  private static withOptions(options: Provider<OutboxOptions>): DynamicModule {
    return {
      module: OutboxModule,
      global: true,
      providers: [options, OutboxRepository, OutboxRelay, Transactions],
      exports: [OutboxRepository, OutboxRelay, Transactions],
    };
  }
}
