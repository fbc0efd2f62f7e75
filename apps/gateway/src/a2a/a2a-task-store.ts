import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { GATEWAY_SCHEMA, GatewayDatabase } from '../database/gateway-database.js';

const TASK_TABLE = `${GATEWAY_SCHEMA}.a2a_tasks`;
/** The facade's tasks are few and small: a handful of connections is plenty. */
const POOL_SIZE = 4;

/**
 * The A2A facade's task store: the SDK's own `DatabaseTaskStore` (Kysely) on PostgreSQL, in the gateway's schema,
 * whose table the gateway's migrations create. The gateway otherwise needs no database, so the store connects
 * lazily: the gateway boots (and serves REST) while the database is down, and an A2A call then fails with a clear
 * error and tries again next time, instead of the whole gateway refusing to start.
 */
@Injectable()
export class A2aTaskStore implements TaskStore, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(A2aTaskStore.name);
  private ready: Promise<{ store: DatabaseTaskStore; database: Kysely<unknown> }> | undefined;
  private closed = false;

  constructor(private readonly gatewayDatabase: GatewayDatabase) {}

  /** Migrates at start, as the other services do; a failure is only logged here and retried on first use. */
  onApplicationBootstrap(): void {
    this.connect().catch((error: unknown) => this.logger.warn((error as Error).message));
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const { store } = await this.connect();
    await store.save(task, context);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const { store } = await this.connect();
    return store.load(taskId, context);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { store } = await this.connect();
    return store.list(params, context);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    const ready = this.ready;
    this.ready = undefined;
    const connected = await ready?.catch(() => undefined);
    await connected?.database.destroy();
  }

  private connect() {
    if (this.closed) return Promise.reject(new Error('The A2A task store is closed'));
    this.ready ??= this.open().catch((error: unknown) => {
      this.ready = undefined;
      throw new Error(`The A2A task store is unavailable: ${(error as Error)?.message ?? String(error)}`);
    });
    return this.ready;
  }

  private async open() {
    // The gateway's one DataSource migrates the schema (the task table among it).
    await this.gatewayDatabase.dataSource();
    const database = new Kysely<unknown>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: this.gatewayDatabase.url, max: POOL_SIZE }),
      }),
    });
    return { store: new DatabaseTaskStore(database, { tableName: TASK_TABLE }), database };
  }
}
