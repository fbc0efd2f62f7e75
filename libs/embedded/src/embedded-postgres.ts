import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { guardExtendedProtocol } from './pglite-protocol-guard.js';

export interface EmbeddedPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory for the data files; in memory when absent. */
  dataDir?: string;
  /** 0 (default) picks a free port. */
  port?: number;
}

/**
 * PostgreSQL with pgvector, embedded: PGlite (Postgres compiled to WebAssembly) served over the PostgreSQL wire
 * protocol on a local TCP port, so `pg` and TypeORM connect to it exactly as to a real server. PGlite is a single
 * session; the socket server multiplexes connections and keeps each transaction on its own connection.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ dataDir: options.dataDir, extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 200 });
  guardExtendedProtocol(server);
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
