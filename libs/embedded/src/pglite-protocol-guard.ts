import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { PostgresPasswordGate } from './postgres-password-gate.js';

/** The parts of pglite-socket's (private) query queue that the guard replaces. */
interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  timestamp: number;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

interface QueryQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  db: PGlite;
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

// Frontend messages of the extended query protocol that leave a cycle open until the client's Sync:
// Parse, Bind, Describe, Execute, Close, Flush.
const OPENS_CYCLE = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((letter) => letter.charCodeAt(0)));

/**
 * pglite-socket queues each protocol message separately and, outside transactions, takes them first come first
 * served. An extended-protocol query (Parse, Bind, Execute… Sync — what `pg` sends for every parameterized query) of
 * one connection can then be interleaved with another connection's: the second Parse replaces the unnamed statement
 * and the first connection's Bind fails ("unnamed prepared statement does not exist", "portal \"\" does not exist"),
 * or runs the wrong statement. It happens as soon as two connections query at once (several services, or one with a
 * pool). The guard makes the queue keep serving the connection whose cycle is open until its Sync, as it already
 * does for a connection inside a transaction; and it keeps the queue running after a failed message (the original
 * stops processing until the next enqueue).
 *
 * The same loop is where a password gate, when given, answers a connection's first messages (PGlite itself trusts
 * everyone): nothing of a connection reaches the database before its password was right.
 */
export function guardExtendedProtocol(server: PGLiteSocketServer, gate?: PostgresPasswordGate): void {
  const queue = (server as unknown as { queryQueue: QueryQueue }).queryQueue;
  let cycleOwner: number | null = null;

  const clearQueueForHandler = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId: number) => {
    if (cycleOwner === handlerId) cycleOwner = null;
    gate?.forget(handlerId);
    clearQueueForHandler(handlerId);
  };

  queue.processQueue = async function processQueue(this: QueryQueue): Promise<void> {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        // The connection that must go on: inside its transaction, or in the middle of an extended query.
        const owner = cycleOwner ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        const index = owner === null ? 0 : this.queue.findIndex((entry) => entry.handlerId === owner);
        if (index === -1) break; // its next message has not arrived yet; enqueue() starts processing again
        const [entry] = this.queue.splice(index, 1);
        const decision = gate?.decide(entry.handlerId, entry.message) ?? { kind: 'pass' };
        if (decision.kind === 'reply' || decision.kind === 'refuse') {
          entry.onData(decision.bytes);
          // A refusal rejects the message: pglite-socket then closes the connection, after the error was written.
          if (decision.kind === 'refuse') entry.reject(new Error(decision.reason));
          else entry.resolve(decision.bytes.length);
          continue;
        }
        const message = decision.kind === 'startup' ? decision.message : entry.message;
        const type = message[0];
        cycleOwner = OPENS_CYCLE.has(type) ? entry.handlerId : null;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                entry.onData(data);
              },
            }),
          );
        } catch (error) {
          entry.reject(error);
          continue;
        }
        this.lastHandlerId = entry.handlerId;
        entry.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };
}
