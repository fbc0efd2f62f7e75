import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';

/** The embedded PostgreSQL asks for a password like any PostgreSQL: PGlite alone would let anyone in. */
describe('embedded PostgreSQL password', () => {
  let database: EmbeddedPostgres;

  beforeAll(async () => {
    database = await startEmbeddedPostgres({ password: 'correct horse' });
  }, 60_000);

  afterAll(async () => {
    await database?.stop();
  });

  async function query(url: string): Promise<unknown> {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      const result = await client.query<{ answer: number }>('SELECT 6 * 7 AS answer');
      return result.rows[0].answer;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  function withPassword(password: string | undefined): string {
    const url = new URL(database.url);
    url.password = password === undefined ? '' : encodeURIComponent(password);
    return url.toString();
  }

  it('serves a client that gives the password (the one in its url)', async () => {
    expect(database.url).toContain(encodeURIComponent('correct horse'));
    await expect(query(database.url)).resolves.toBe(42);
  });

  it('refuses a wrong password with PostgreSQL error 28P01, and goes on serving others', async () => {
    await expect(query(withPassword('postgres'))).rejects.toMatchObject({
      code: '28P01',
      message: expect.stringMatching(/password authentication failed for user "postgres"/),
    });
    await expect(query(database.url)).resolves.toBe(42);
  });

  it('refuses a client without a password', async () => {
    await expect(query(withPassword(undefined))).rejects.toThrow(/password/i);
    await expect(query(database.url)).resolves.toBe(42);
  });

  it('keeps authenticated connections working while others are refused at the same time', async () => {
    const attempts = await Promise.allSettled([
      ...Array.from({ length: 4 }, () => query(database.url)),
      ...Array.from({ length: 4 }, () => query(withPassword('guess'))),
    ]);
    expect(attempts.map((attempt) => attempt.status)).toEqual([
      ...Array(4).fill('fulfilled'),
      ...Array(4).fill('rejected'),
    ]);
  });

  it('makes up a random password when none is given', async () => {
    const other = await startEmbeddedPostgres();
    try {
      const password = decodeURIComponent(new URL(other.url).password);
      expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
      await expect(query(other.url)).resolves.toBe(42);
    } finally {
      await other.stop();
    }
  }, 60_000);
});
