import { ContractError } from './errors.js';

/**
 * Where a newest-first page ended: the sort key (`createdAt` desc, then `id` desc) of its last item. List requests
 * carry it as an opaque cursor so the next page starts right after it (keyset pagination): rows inserted meanwhile
 * neither shift nor repeat what a client already has, and no OFFSET scan grows with the page number.
 */
export interface ListCursorPosition {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The cursor of a position, `<epoch ms>_<id>`: URL-safe and free of Node-only APIs (the web console imports this
 * package). Opaque to clients, who pass it back unchanged; its form may change in a later version.
 */
export function encodeListCursor(position: ListCursorPosition): string {
  return `${position.createdAt.getTime()}_${position.id}`;
}

/**
 * The position a cursor names. A cursor that is not one this platform minted is VALIDATION_FAILED on `cursor`
 * (HTTP 400), never a silent first page: a client paging with a broken cursor would otherwise loop forever.
 */
export function decodeListCursor(cursor: string): ListCursorPosition {
  const match = /^(\d{1,15})_(.+)$/.exec(cursor);
  const createdAt = new Date(Number(match?.[1]));
  const id = match?.[2] ?? '';
  if (!match || Number.isNaN(createdAt.getTime()) || !UUID.test(id)) {
    throw new ContractError('VALIDATION_FAILED', 'Invalid request: cursor is not a cursor this list returned', [
      { property: 'cursor', constraints: ['must be the nextCursor of a previous page, unchanged'] },
    ]);
  }
  return { createdAt, id };
}
