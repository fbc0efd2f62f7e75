import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { TEST_ADMIN_API_KEY } from '@ioa/testing';
import {
  startGatewayOverPlatform,
  type GatewayOverPlatform,
} from '../../apps/gateway/src/testing/gateway-over-platform.js';
import { buildConsole, launchChromium } from '../console/support/console-browser.js';
import {
  benchCommand,
  benchLog,
  describeMachine,
  distribution,
  envNumber,
  loadAverage,
  ms,
  runDate,
  updateBenchmarksDoc,
} from './bench-support.js';

const GOALS = envNumber('BENCH_CONSOLE_GOALS', 10);
const GOAL = 'Write a two-line note about agent presence.';
const log = benchLog('console');

/**
 * How long a person waits, in the web console, between clicking "Submit goal" and seeing the goal's first chat
 * message: the REST submit, the console's navigation to the goal page, its event stream opening, team formation and
 * the group chat opening, and the message reaching the page. Real Chromium, the real platform with the offline model
 * (so the model's own latency is not in it), one goal at a time.
 */
describe('console: time to the first event of a goal', () => {
  let stack: GatewayOverPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    process.env.GATEWAY_CONSOLE_DIR = await buildConsole();
    stack = await startGatewayOverPlatform();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${stack.baseUrl}/?key=${TEST_ADMIN_API_KEY}`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  it('measures submit → first chat message visible, and submit → goal completed', async () => {
    const firstMessage: number[] = [];
    const completed: number[] = [];
    for (let run = 0; run < GOALS; run++) {
      await page.goto(`${stack.baseUrl}/#/goals`);
      await page.getByRole('textbox', { name: /^Goal\b/ }).fill(GOAL);
      await page.getByLabel('Members').fill('writer');
      const clicked = performance.now();
      await page.getByRole('button', { name: 'Submit goal' }).click();
      // The first message of every goal is the system's "Group formed…" (not the log's "No message yet." placeholder).
      await page
        .getByRole('log', { name: 'Messages' })
        .getByText(/^Group formed/)
        .waitFor({ timeout: 60_000 });
      firstMessage.push(performance.now() - clicked);
      await page
        .getByLabel('Goal status')
        .filter({ hasText: /^completed$/ })
        .waitFor({ timeout: 120_000 });
      completed.push(performance.now() - clicked);
      log(`goal ${run + 1}/${GOALS}: first message ${ms(firstMessage.at(-1)!)}, completed ${ms(completed.at(-1)!)}`);
    }
    const first = distribution(firstMessage);
    const done = distribution(completed);
    expect(first.count).toBe(GOALS);
    await updateBenchmarksDoc(
      'console-first-event',
      `## Web console: time to a goal's first event

\`\`\`bash
npm run bench:console      # BENCH_CONSOLE_GOALS=10 by default
\`\`\`

Code: \`test/bench/console-first-event.bench.ts\`. In Debian's Chromium (playwright-core), against the real platform
behind the gateway with the offline model, one goal at a time (\`writer\` alone): from the click on "Submit goal" to
the goal's first chat message visible on its page (the REST submit, the page's event stream opening, team formation,
the group chat opening, the event reaching the page), and to the status badge saying \`completed\`.`,
      'latest',
      `Run ${runDate()}, \`${benchCommand('bench:console')}\`; ${describeMachine()}; load ${loadAverage()}.

| ${GOALS} goals | p50 | p90 | max |
| --- | --- | --- | --- |
| click → first chat message visible | ${ms(first.p50)} | ${ms(first.p90)} | ${ms(first.max)} |
| click → \`completed\` shown | ${ms(done.p50)} | ${ms(done.p90)} | ${ms(done.max)} |`,
      ['latest'],
    );
  }, 900_000);
});
