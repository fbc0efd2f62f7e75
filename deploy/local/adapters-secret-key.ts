import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file under the data directory holding the adapters' master key (mode 0600: the owner only). */
export const ADAPTERS_SECRET_KEY_FILE = 'adapters-secret-key';
const KEY_PATTERN = /^[A-Za-z0-9+/]{43}=$/;

/**
 * The master key that seals adapted agents' secrets (ADAPTERS_SECRET_KEY: 32 random bytes, base64): generated once
 * into `<dataDir>/adapters-secret-key` with mode 0600 and read back on every later start, since secrets sealed
 * under it cannot be opened with another. Losing the file loses the stored secrets (their agents then need their
 * endpoint given again), never anything else.
 */
export function localAdaptersSecretKey(dataDir: string): { key: string; file: string; created: boolean } {
  const file = join(dataDir, ADAPTERS_SECRET_KEY_FILE);
  try {
    const key = readFileSync(file, 'utf8').trim();
    if (!KEY_PATTERN.test(key)) throw new Error(`${file} does not hold a base64 32-byte key`);
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return { key, file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('base64');
  // `wx`: never overwrite a key another start wrote in the meantime.
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { key, file, created: true };
}
