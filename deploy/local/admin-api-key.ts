import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file under the data directory that holds the local admin's API key (mode 0600: the owner only). */
export const ADMIN_API_KEY_FILE = 'admin-api-key';
const API_KEY_PATTERN = /^ioa_[A-Za-z0-9_-]{43}$/;

export interface LocalAdminApiKey {
  key: string;
  file: string;
  /** True when this run generated it (first start with this data directory). */
  created: boolean;
}

/**
 * The local admin's API key: generated once (256 random bits, the gateway's key format) into `<dataDir>/admin-api-key`
 * with mode 0600, and read back on every later start, so the key a person saved keeps working. The gateway
 * provisions it at boot (IOA_ADMIN_API_KEY) as a key of the built-in `local-admin` account.
 */
export function localAdminApiKey(dataDir: string): LocalAdminApiKey {
  const file = join(dataDir, ADMIN_API_KEY_FILE);
  try {
    const key = readFileSync(file, 'utf8').trim();
    if (!API_KEY_PATTERN.test(key)) throw new Error(`${file} does not hold an API key (ioa_ and 43 characters)`);
    // A key file others can read is tightened rather than trusted as it is.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return { key, file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = `ioa_${randomBytes(32).toString('base64url')}`;
  // `wx`: never overwrite a key another start wrote in the meantime.
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { key, file, created: true };
}
