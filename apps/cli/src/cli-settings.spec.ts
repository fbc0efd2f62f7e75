import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ADMIN_API_KEY_FILE, CliUsageError, DEFAULT_GATEWAY_URL, resolveSettings } from './cli-settings.js';

function dataDirWithKey(key: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ioa-cli-'));
  writeFileSync(join(dir, ADMIN_API_KEY_FILE), `${key}\n`);
  return dir;
}

describe('the CLI settings', () => {
  it('take the flags first', () => {
    const settings = resolveSettings(
      { gateway: 'http://gw.example:9000/', apiKey: 'from-flag' },
      { IOA_GATEWAY_URL: 'http://env.example', IOA_API_KEY: 'from-env' },
      '/',
    );
    expect(settings).toEqual({ gatewayUrl: 'http://gw.example:9000', apiKey: 'from-flag' });
  });

  it('then the environment, then the local stack (its default port and key file)', () => {
    expect(resolveSettings({}, { IOA_API_KEY: 'from-env' }, '/').apiKey).toBe('from-env');
    const dataDir = dataDirWithKey('from-file');
    expect(resolveSettings({}, { IOA_DATA_DIR: dataDir }, '/')).toEqual({
      gatewayUrl: DEFAULT_GATEWAY_URL,
      apiKey: 'from-file',
    });
    // An empty variable is unset, as a shell or CI template leaves it.
    expect(resolveSettings({}, { IOA_API_KEY: '', IOA_DATA_DIR: dataDir }, '/').apiKey).toBe('from-file');
  });

  it('read .data/admin-api-key under the working directory when IOA_DATA_DIR is not set', () => {
    const clone = mkdtempSync(join(tmpdir(), 'ioa-clone-'));
    const dataDir = join(clone, '.data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, ADMIN_API_KEY_FILE), 'in-the-clone\n');
    expect(resolveSettings({}, {}, clone).apiKey).toBe('in-the-clone');
  });

  it('say how to get a key when there is none, and refuse a gateway that is not an http(s) URL', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ioa-empty-'));
    expect(() => resolveSettings({}, { IOA_DATA_DIR: empty }, '/')).toThrow(/pass --api-key, set IOA_API_KEY/);
    expect(() => resolveSettings({ gateway: 'ftp://x', apiKey: 'k' }, {}, '/')).toThrow(CliUsageError);
    expect(() => resolveSettings({ gateway: 'not a url', apiKey: 'k' }, {}, '/')).toThrow(CliUsageError);
  });
});
