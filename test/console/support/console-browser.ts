import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AxeResults } from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';

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

/** The WCAG 2.1 A and AA rules: labels, names, roles, keyboard focus, contrast. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * What axe-core (the accessibility engine browsers' own audits use) finds wrong on the page as it is now, one line
 * per rule broken: the rule, its impact and the first elements that break it. Empty when the page passes.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  const results = await page.evaluate<AxeResults>(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_AA)} } })`,
  );
  return results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help}; ${violation.nodes.length} element(s), e.g. ` +
      violation.nodes
        .slice(0, 3)
        .map((node) => `${node.target.join(' ')} ${node.failureSummary?.split('\n').slice(1).join(' ') ?? ''}`)
        .join(' | '),
  );
}
