import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

/**
 * Builds the console with Vite into a temporary directory (removed when the test process ends) and returns it, for
 * the gateway to serve (GATEWAY_CONSOLE_DIR): the test sees the console of this checkout, not a stale dist/.
 */
export async function buildConsole(): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), 'ioa-console-'));
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  await promisify(execFile)(
    'npx',
    ['vite', 'build', '--config', 'apps/console/vite.config.ts', '--outDir', directory, '--emptyOutDir'],
    { cwd: process.cwd(), env: process.env },
  );
  return directory;
}

/**
 * Debian's Chromium (deploy/local/bootstrap.mjs installs it for `npm test`), driven by playwright-core: Playwright's
 * own browser download cannot run here. `--no-sandbox` because CI runs as root.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    headless: true,
  });
}
