import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ADAPTERS_SECRET_KEY_FILE, localAdaptersSecretKey } from './adapters-secret-key.js';

describe('the local adapters secret key', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('is created once (32 random bytes, base64, mode 0600) and read back on later starts', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ioa-adapters-key-'));
    dirs.push(dataDir);
    const first = localAdaptersSecretKey(dataDir);
    expect(first.created).toBe(true);
    expect(Buffer.from(first.key, 'base64')).toHaveLength(32);
    expect(statSync(join(dataDir, ADAPTERS_SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    const again = localAdaptersSecretKey(dataDir);
    expect(again).toEqual({ ...first, created: false });
    expect(readFileSync(first.file, 'utf8').trim()).toBe(first.key);
  });
});
