import { type DynamicModule, Injectable, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource, type EntitySchema, type MixedList } from 'typeorm';
import { databaseConfig } from '@ioa/config';
import { DATABASE_PROBE, type DatabaseProbe } from '@ioa/messaging';

export interface ServiceDatabaseOptions {
  /** The PostgreSQL schema this service owns; no other service reads or writes it. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own type for entity lists
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own type for migration lists
  migrations: MixedList<Function | string>;
  /** SQL run before migrations, as the connecting user (e.g. `CREATE EXTENSION IF NOT EXISTS vector`). */
  prerequisites?: string[];
}

/**
 * Creates the service's schema (and prerequisites) before TypeORM connects: TypeORM keeps its migrations table in
 * that schema, so it must exist before the first migration runs.
 */
export async function prepareSchema(url: string, schema: string, prerequisites: string[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    for (const statement of prerequisites) await client.query(statement);
  } finally {
    await client.end();
  }
}

@Injectable()
class TypeOrmDatabaseProbe implements DatabaseProbe {
  constructor(private readonly dataSource: DataSource) {}

  async isReachable(): Promise<boolean> {
    try {
      await this.dataSource.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * TypeORM for one service: its own schema, explicit entities, committed migrations run at start, and never
 * `synchronize` — the schema changes only through migrations, in every environment.
 */
@Module({})
export class DatabaseModule {
  static forService(options: ServiceDatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [databaseConfig.KEY],
          useFactory: async (config: ConfigType<typeof databaseConfig>) => {
            await prepareSchema(config.url, options.schema, options.prerequisites);
            return {
              type: 'postgres' as const,
              url: config.url,
              schema: options.schema,
              entities: options.entities,
              migrations: options.migrations,
              migrationsTableName: 'migrations',
              migrationsRun: true,
              migrationsTransactionMode: 'each' as const,
              synchronize: false,
              extra: { max: config.poolSize },
            };
          },
        }),
      ],
      providers: [{ provide: DATABASE_PROBE, useClass: TypeOrmDatabaseProbe }],
      exports: [DATABASE_PROBE],
    };
  }
}
