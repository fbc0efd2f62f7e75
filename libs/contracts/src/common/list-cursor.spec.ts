import { describe, expect, it } from '@jest/globals';
import { ContractError } from './errors.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';

describe('list cursors', () => {
  it('give back the position they were made from', () => {
    const position = { createdAt: new Date('2026-11-23T22:00:00.123Z'), id: '0b9f0c8e-3a52-4c8e-9b51-7d0c2a1e4f10' };
    expect(decodeListCursor(encodeListCursor(position))).toEqual(position);
  });

  it.each(['', 'garbage', '123', '123_', '_0b9f0c8e-3a52-4c8e-9b51-7d0c2a1e4f10', '99999999999999999_x', '1_a_b'])(
    'refuse %j as VALIDATION_FAILED on cursor',
    (cursor) => {
      expect(() => decodeListCursor(cursor)).toThrow(ContractError);
      try {
        decodeListCursor(cursor);
      } catch (error) {
        expect((error as ContractError).code).toBe('VALIDATION_FAILED');
      }
    },
  );
});
