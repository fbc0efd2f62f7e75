import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One secret the local stack keeps under its data directory. */
export interface LocalSecretKind {
  /** File name under the data directory (mode 0600: the owner only). */
  file: string;
  /** What it is, in an error message: "an API key (ioa_ and 43 characters)". */
  description: string;
  pattern: RegExp;
  generate(): string;
}

export interface LocalSecret {
  key: string;
  file: string;
  /** True when this run generated it (first start with this data directory). */
  created: boolean;
}

/**
 * The local admin's API key (256 random bits, the gateway's key format). The gateway provisions it at boot
 * (IOA_ADMIN_API_KEY) as a key of the built-in `local-admin` account; the CLI reads it from the same file.
 */
export const ADMIN_API_KEY: LocalSecretKind = {
  file: 'admin-api-key',
  description: 'an API key (ioa_ and 43 characters)',
  pattern: /^ioa_[A-Za-z0-9_-]{43}$/,
  generate: () => `ioa_${randomBytes(32).toString('base64url')}`,
};

/**
 * The adapters' master key (ADAPTERS_SECRET_KEY: 32 random bytes, base64). Secrets sealed under it cannot be opened
 * with another; losing the file loses the stored secrets (their agents then need their endpoint given again).
 */
export const ADAPTERS_SECRET_KEY: LocalSecretKind = {
  file: 'adapters-secret-key',
  description: 'a base64 32-byte key',
  pattern: /^[A-Za-z0-9+/]{43}=$/,
  generate: () => randomBytes(32).toString('base64'),
};

/** The embedded PostgreSQL's password (user `postgres`), so a person can connect with psql as the services do. */
export const POSTGRES_PASSWORD: LocalSecretKind = {
  file: 'postgres-password',
  description: 'a password (32 base64url characters)',
  pattern: /^[A-Za-z0-9_-]{32}$/,
  generate: () => randomBytes(24).toString('base64url'),
};

/**
 * A secret generated once into `<dataDir>/<kind.file>` with mode 0600 and read back on every later start, so what a
 * person saved (or what was sealed under it) keeps working.
 */
export function localSecret(dataDir: string, kind: LocalSecretKind): LocalSecret {
  const file = join(dataDir, kind.file);
  try {
    const key = readFileSync(file, 'utf8').trim();
    if (!kind.pattern.test(key)) throw new Error(`${file} does not hold ${kind.description}`);
    // A secret file others can read is tightened rather than trusted as it is.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return { key, file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = kind.generate();
  // `wx`: never overwrite a secret another start wrote in the meantime.
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { key, file, created: true };
}
