import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { databaseConfig } from '@ioa/config';
import { prepareSchema } from '@ioa/database';
import { AccountEntity } from '../auth/account.entity.js';
import { ApiKeyEntity } from '../auth/api-key.entity.js';
import { CreateA2aTasks1795500000000 } from '../migrations/1795500000000-create-a2a-tasks.js';
import { CreateAccounts1795700000000 } from '../migrations/1795700000000-create-accounts.js';

/** The schema the gateway owns: people's accounts and API keys, and the A2A facade's tasks. */
export const GATEWAY_SCHEMA = 'gateway';
/** Accounts and keys are small and read by index; a few connections serve every request's key lookup. */
const POOL_SIZE = 4;

/**
 * The gateway's own database, connected lazily: the gateway boots (and answers its health probes) while the
 * database is down, and a call that needs it fails with a clear 503 and tries again next time, instead of the whole
 * gateway refusing to start. One DataSource runs all of the schema's migrations, so two stores never race on the
 * migrations table.
 */
@Injectable()
export class GatewayDatabase implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(GatewayDatabase.name);
  private ready: Promise<DataSource> | undefined;
  private closed = false;

  constructor(@Inject(databaseConfig.KEY) private readonly config: ConfigType<typeof databaseConfig>) {}

  /** Migrates at start, as the other services do; a failure is only logged here and retried on first use. */
  onApplicationBootstrap(): void {
    this.dataSource().catch((error: unknown) => this.logger.warn((error as Error).message));
  }

  get url(): string {
    return this.config.url;
  }

  /** The migrated DataSource; rejects (and is retried by the next call) while the database is unreachable. */
  dataSource(): Promise<DataSource> {
    if (this.closed) return Promise.reject(new Error('The gateway database is closed'));
    this.ready ??= this.open().catch((error: unknown) => {
      this.ready = undefined;
      throw new Error(`The gateway database is unavailable: ${(error as Error)?.message ?? String(error)}`);
    });
    return this.ready;
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    const ready = this.ready;
    this.ready = undefined;
    const dataSource = await ready?.catch(() => undefined);
    if (dataSource?.isInitialized) await dataSource.destroy();
  }

  private async open(): Promise<DataSource> {
    await prepareSchema(this.config.url, GATEWAY_SCHEMA);
    const dataSource = new DataSource({
      type: 'postgres',
      url: this.config.url,
      schema: GATEWAY_SCHEMA,
      entities: [AccountEntity, ApiKeyEntity],
      migrations: [CreateA2aTasks1795500000000, CreateAccounts1795700000000],
      migrationsTableName: 'migrations',
      migrationsTransactionMode: 'each',
      synchronize: false,
      extra: { max: POOL_SIZE },
    });
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
    } catch (error) {
      await dataSource.destroy();
      throw error;
    }
    return dataSource;
  }
}

@Global()
@Module({ providers: [GatewayDatabase], exports: [GatewayDatabase] })
export class GatewayDatabaseModule {}
