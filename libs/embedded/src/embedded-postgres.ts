import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { randomBytes } from 'node:crypto';
import { guardExtendedProtocol } from './pglite-protocol-guard.js';
import { PostgresPasswordGate } from './postgres-password-gate.js';

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
  /**
   * The password every connection must give (user `postgres`). Random when absent: only the returned `url`
   * connects, which is all a test or a one-off stack needs.
   */
  password?: string;
}

/**
 * PostgreSQL with pgvector, embedded: PGlite (Postgres compiled to WebAssembly) served over the PostgreSQL wire
 * protocol on a local TCP port, so `pg` and TypeORM connect to it exactly as to a real server. PGlite is a single
 * session; the socket server multiplexes connections and keeps each transaction on its own connection. Like any
 * PostgreSQL it asks for a password (PGlite alone would let anyone in who can reach the port).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ dataDir: options.dataDir, extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 200 });
  const password = options.password ?? randomBytes(24).toString('base64url');
  guardExtendedProtocol(server, new PostgresPasswordGate(password));
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
