import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ADAPTERS_SECRET_KEY,
  ADMIN_API_KEY,
  localSecret,
  POSTGRES_PASSWORD,
  type LocalSecretKind,
} from './local-secrets.js';

describe('the local stack secrets', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ioa-local-secret-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each<[string, LocalSecretKind, (key: string) => void]>([
    ['admin API key', ADMIN_API_KEY, (key) => expect(key).toMatch(/^ioa_[A-Za-z0-9_-]{43}$/)],
    ['adapters master key', ADAPTERS_SECRET_KEY, (key) => expect(Buffer.from(key, 'base64')).toHaveLength(32)],
    ['PostgreSQL password', POSTGRES_PASSWORD, (key) => expect(key).toHaveLength(32)],
  ])('%s: generated once, readable by its owner only, read back afterwards', (_name, kind, checkShape) => {
    const first = localSecret(dataDir, kind);
    expect(first.created).toBe(true);
    checkShape(first.key);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, kind.file), 'utf8').trim()).toBe(first.key);
    expect(localSecret(dataDir, kind)).toEqual({ key: first.key, file: first.file, created: false });
  });

  it('gives each secret its own file', () => {
    const keys = [ADMIN_API_KEY, ADAPTERS_SECRET_KEY, POSTGRES_PASSWORD].map((kind) => localSecret(dataDir, kind).key);
    expect(new Set(keys).size).toBe(3);
  });

  it('tightens a secret file others could read, and refuses one that holds something else', () => {
    const file = join(dataDir, ADMIN_API_KEY.file);
    writeFileSync(file, `ioa_${'x'.repeat(43)}\n`, { mode: 0o644 });
    expect(localSecret(dataDir, ADMIN_API_KEY).created).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, 'password123\n');
    expect(() => localSecret(dataDir, ADMIN_API_KEY)).toThrow(/does not hold an API key/);
  });
});
