import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_API_KEY_FILE, localAdminApiKey } from './admin-api-key.js';

describe('the local admin API key', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ioa-admin-key-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is generated once into the data directory, readable by its owner only, and read back afterwards', () => {
    const first = localAdminApiKey(dataDir);
    expect(first.created).toBe(true);
    expect(first.key).toMatch(/^ioa_[A-Za-z0-9_-]{43}$/);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, ADMIN_API_KEY_FILE), 'utf8').trim()).toBe(first.key);
    const again = localAdminApiKey(dataDir);
    expect(again).toEqual({ key: first.key, file: first.file, created: false });
  });

  it('tightens a key file others could read, and refuses one that holds no key', () => {
    const file = join(dataDir, ADMIN_API_KEY_FILE);
    writeFileSync(file, `ioa_${'x'.repeat(43)}\n`, { mode: 0o644 });
    expect(localAdminApiKey(dataDir).created).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, 'password123\n');
    expect(() => localAdminApiKey(dataDir)).toThrow(/does not hold an API key/);
  });
});
