import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { jetstream } from '@nats-io/jetstream';
import { TasksAssignedV1, type AgentCardV1, type GoalV1 } from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import { expectEventually, TEST_ADMIN_API_KEY } from '@ioa/testing';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { startA2aWeatherAgent, type A2aWeatherAgent } from '../../deploy/local/a2a-weather-agent.js';
import {
  greeterMoves,
  startSelfSpeakingAgent,
  type SelfSpeakingAgent,
} from '../../apps/gateway/src/testing/self-speaking-agent.js';
import {
  startGatewayOverPlatform,
  type GatewayOverPlatform,
} from '../../apps/gateway/src/testing/gateway-over-platform.js';
import { accessibilityViolations, buildConsole, launchChromium } from './support/console-browser.js';

const GOAL_DEADLINE_MS = 120_000;
const DEMO_GOAL =
  'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.';
/** Where screenshots go: `npm run console:screenshots` points it at docs/console; a test run keeps them out of git. */
const SCREENSHOTS = process.env.IOA_CONSOLE_SCREENSHOTS;

/**
 * The web console in a real Chromium (Debian's, driven by playwright-core) against the real platform behind the
 * gateway that serves it: a person signs in, searches agents, connects and removes an A2A agent, submits a goal and
 * watches its team and chat appear, answers the team's question, cancels a goal, manages the account's API keys; the
 * live view survives a dropped connection without losing or repeating a message; the layout holds on a phone.
 */
describe('the web console in Chromium', () => {
  let stack: GatewayOverPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const agents: SelfSpeakingAgent[] = [];
  /** The adapters service, which speaks for agents connected from the console, and one such agent (A2A v1.0). */
  let adapters: INestMicroservice;
  let weatherAgent: A2aWeatherAgent;

  async function api<T>(path: string): Promise<T> {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_API_KEY}` },
    });
    return (await response.json()) as T;
  }

  /** Saves the whole page, or just one part of it (a long goal page would make its picture unreadable). */
  async function screenshot(name: string, part?: Locator): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    const path = join(SCREENSHOTS, `${name}.png`);
    await (part ? part.screenshot({ path }) : page.screenshot({ path, fullPage: true }));
  }

  /** The view as it is now passes axe-core's WCAG 2.1 AA rules (names, labels, roles, contrast). */
  async function expectAccessible(view: Page = page): Promise<void> {
    await expect(accessibilityViolations(view)).resolves.toEqual([]);
  }

  /** Submits a goal from the form and returns its id, once the console shows its page. */
  async function submitGoal(goal: string, members: string): Promise<string> {
    await page.goto(`${stack.baseUrl}/#/goals`);
    await page.getByRole('textbox', { name: /^Goal\b/ }).fill(goal);
    await page.getByLabel('Members').fill(members);
    await page.getByRole('button', { name: 'Submit goal' }).click();
    await page.waitForURL(/#\/goals\/[0-9a-f-]{36}$/);
    return decodeURIComponent(page.url().split('/').pop()!);
  }

  async function statusIs(status: string): Promise<void> {
    await expect(
      page
        .getByLabel('Goal status')
        .filter({ hasText: new RegExp(`^${status}$`) })
        .waitFor({
          timeout: GOAL_DEADLINE_MS,
        }),
    ).resolves.toBeUndefined();
  }

  beforeAll(async () => {
    process.env.GATEWAY_CONSOLE_DIR = await buildConsole();
    stack = await startGatewayOverPlatform();
    stack.platform.infrastructure.applyEnvironment({
      ADAPTERS_HEARTBEAT_MS: '1000',
      ADAPTERS_CALLBACK_PORT: '0',
      ADAPTERS_CALL_TIMEOUT_MS: '5000',
    });
    adapters = await createService(AdaptersModule, { name: 'adapters', logger: false });
    weatherAgent = await startA2aWeatherAgent();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  }, 600_000);

  afterAll(async () => {
    for (const agent of agents) agent.stop();
    await browser?.close();
    await weatherAgent?.stop();
    await adapters?.close();
    await stack?.stop();
    delete process.env.GATEWAY_CONSOLE_DIR;
  }, 60_000);

  it('signs in with the key in the address, which then leaves the address bar', async () => {
    await page.goto(`${stack.baseUrl}/?key=${TEST_ADMIN_API_KEY}`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(page.url()).not.toContain(TEST_ADMIN_API_KEY);
    await expect(page.getByRole('heading', { name: 'Goals' }).isVisible()).resolves.toBe(true);
    await expectAccessible();
  });

  it('refuses a wrong key with the gateway’s message, and signs in with the right one by keyboard', async () => {
    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    await other.goto(stack.baseUrl);
    await other.getByLabel('API key').waitFor();
    await expectAccessible(other);
    await other.getByLabel('API key').fill('ioa_not-a-real-key');
    await other.keyboard.press('Enter');
    await other.getByRole('alert').waitFor();
    await expect(other.getByRole('alert').textContent()).resolves.toMatch(/Not signed in/);
    await other.getByLabel('API key').fill(TEST_ADMIN_API_KEY);
    await other.keyboard.press('Enter');
    await other.getByRole('navigation', { name: 'Main' }).waitFor();
    await fresh.close();
  });

  it('lists the agents with presence and kind, and searches them by skill with scores', async () => {
    await page.goto(`${stack.baseUrl}/#/agents`);
    const all = page.getByRole('list', { name: 'All agents' });
    await all.getByText('code-runner').waitFor();
    await expect(all.getByRole('listitem').count()).resolves.toBeGreaterThanOrEqual(3);
    // Every agent's card is as wide as the list, however short its description.
    const listWidth = (await all.boundingBox())!.width;
    for (const item of await all.getByRole('listitem').all()) {
      expect(Math.abs((await item.locator('.mantine-Card-root').boundingBox())!.width - listWidth)).toBeLessThan(2);
    }
    await page.getByLabel('Search agents').fill('run some javascript code');
    const results = page.getByRole('list', { name: 'Search results' });
    const first = results.getByRole('listitem').first();
    await first.getByText('code-runner').waitFor();
    await expect(first.textContent()).resolves.toMatch(/code-runner.*score 0\.\d{3}.*native.*online/s);
    await expectAccessible();
    await screenshot('agents');
  });

  it('connects an A2A agent from its URL alone, says why an endpoint is refused, and removes the agent', async () => {
    await page.goto(`${stack.baseUrl}/#/agents`);
    // The page may still hold the previous test's search: the whole directory is what this test watches.
    await page.getByLabel('Search agents').fill('');
    await page.getByRole('button', { name: 'Connect an agent' }).click();
    const form = page.getByRole('region', { name: 'Connect an agent' });
    await expect(form.getByRole('radio', { name: 'A2A agent' }).isChecked()).resolves.toBe(true);
    // Nothing listens there: the adapters service cannot read a card, and the form says so.
    await form.getByRole('textbox', { name: /^Agent URL/ }).fill('http://127.0.0.1:9/');
    await form.getByRole('button', { name: 'Connect agent' }).click();
    await form.getByRole('alert').waitFor({ timeout: 60_000 });
    await expect(form.getByRole('alert').textContent()).resolves.toMatch(/127\.0\.0\.1:9/);

    await form.getByRole('textbox', { name: /^Agent URL/ }).fill(weatherAgent.url);
    await expectAccessible();
    await screenshot('connect-agent');
    await form.getByRole('button', { name: 'Connect agent' }).click();
    const connected = page.getByRole('status').filter({ hasText: /Connected “weather-oracle” \(A2A\)/ });
    await connected.waitFor({ timeout: 60_000 });
    // Name, description and skills came from the agent's own card.
    await expect(connected.textContent()).resolves.toContain('Its endpoint answers; skills: Weather forecast.');
    const card = page.getByRole('list', { name: 'All agents' }).getByRole('listitem').filter({
      hasText: 'weather-oracle',
    });
    await card.getByText('A2A', { exact: true }).waitFor();
    await card.getByText('online', { exact: true }).waitFor({ timeout: 30_000 });
    const registered = await api<{ items: AgentCardV1[] }>('/v1/agents?limit=100');
    const weather = registered.items.find((agent) => agent.name === 'weather-oracle');
    expect(weather?.endpoint.kind).toBe('a2a');
    expect(weather?.endpoint.url).toContain(weatherAgent.url);
    // Discovery finds it by what its card says it can do (once it has indexed the card: search again until then).
    const search = page.getByLabel('Search agents');
    const first = page.getByRole('list', { name: 'Search results' }).getByRole('listitem').first();
    await expectEventually(
      async () => {
        await search.fill('');
        await search.fill('will it rain tomorrow');
        return ((await first.textContent({ timeout: 5_000 })) ?? '').includes('weather-oracle');
      },
      { timeoutMs: 30_000, message: 'discovery ranks the weather agent first' },
    );
    await search.fill('');

    await card.getByRole('button', { name: 'Remove weather-oracle' }).click();
    await card.getByRole('button', { name: 'Confirm removing weather-oracle' }).click();
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    await expectEventually(
      async () =>
        !(await api<{ items: AgentCardV1[] }>('/v1/agents?limit=100')).items.some((a) => a.id === weather!.id),
      { message: 'the agent is gone from the registry' },
    );
    // Agents that speak NATS themselves are not removed from here.
    await expect(page.getByRole('button', { name: /^Remove / }).count()).resolves.toBe(0);
  });

  it(
    'submits a goal and shows its team, chat, tasks and conclusion live',
    async () => {
      const started = Date.now();
      const goalId = await submitGoal(DEMO_GOAL, 'code-runner, doc-researcher, writer');
      const log = page.getByRole('log', { name: 'Messages' });
      await log.getByText(/Group formed/).waitFor({ timeout: 30_000 });
      const firstEventMs = Date.now() - started;
      process.stdout.write(`console: first chat message visible ${firstEventMs} ms after clicking Submit goal\n`);
      await page.getByRole('region', { name: 'Team' }).getByText('writer').waitFor();
      await statusIs('completed');
      const goal = await api<GoalV1>(`/v1/goals/${goalId}`);
      await expect(page.getByRole('region', { name: 'Conclusion' }).textContent()).resolves.toContain('42');
      // Every message of the group chat once.
      const messages = await api<{ items: Array<{ content: string }> }>(
        `/v1/groups/${goal.groupId}/messages?limit=500`,
      );
      await expect(log.locator('.mantine-Card-root').count()).resolves.toBe(messages.items.length);
      expect(goal.tasks.length).toBeGreaterThan(0);
      for (const task of goal.tasks) {
        await page.getByRole('region', { name: 'Tasks' }).getByText(task.assigneeName).first().waitFor();
      }
      await expect(page.getByLabel('Conversation state').textContent()).resolves.toMatch(/concluded/);
      await expectAccessible();
      await screenshot('goal');
    },
    GOAL_DEADLINE_MS + 30_000,
  );

  it(
    'shows the team’s question with an answer box, and the answer lets the goal conclude',
    async () => {
      agents.push(
        await startSelfSpeakingAgent(stack.platform.client, 'console-asker', greeterMoves('In which language?')),
      );
      await submitGoal('Greet the team in the language the person picks', 'console-asker');
      await statusIs('input_required');
      await page.getByText('In which language?').first().waitFor();
      await expectAccessible();
      await screenshot('question');
      await page.getByLabel('Your answer').fill('German');
      await page.getByRole('button', { name: 'Send answer' }).click();
      await statusIs('completed');
      await expect(page.getByRole('region', { name: 'Conclusion' }).textContent()).resolves.toContain('Hallo');
    },
    GOAL_DEADLINE_MS + 30_000,
  );

  it(
    'cancels a goal that waits for the person',
    async () => {
      const goalId = await submitGoal('Wait for the person, then be canceled', 'console-asker');
      await statusIs('input_required');
      await page.getByRole('button', { name: 'Cancel goal' }).click();
      await statusIs('canceled');
      await expectEventually(async () => (await api<GoalV1>(`/v1/goals/${goalId}`)).status === 'canceled', {
        message: 'the goal is canceled',
      });
      await expect(page.getByRole('button', { name: 'Cancel goal' }).count()).resolves.toBe(0);
    },
    GOAL_DEADLINE_MS,
  );

  it(
    'follows a goal across a dropped connection without losing or repeating a message',
    async () => {
      const goalId = await submitGoal('Greet the team in the language the person picks', 'console-asker');
      await statusIs('input_required');
      await context.setOffline(true);
      // Meanwhile the goal moves on: the person answers from elsewhere (the REST API), the team concludes.
      await fetch(`${stack.baseUrl}/v1/goals/${goalId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'Spanish' }),
      });
      await expectEventually(async () => (await api<GoalV1>(`/v1/goals/${goalId}`)).status === 'completed', {
        timeoutMs: GOAL_DEADLINE_MS,
        message: 'the goal completes while the console is offline',
      });
      await context.setOffline(false);
      await statusIs('completed');
      const log = page.getByRole('log', { name: 'Messages' });
      await log.getByText('Spanish', { exact: true }).waitFor();
      const contents = await log.locator('.mantine-Card-root').allTextContents();
      expect(new Set(contents).size).toBe(contents.length);
      const { groupId } = await api<GoalV1>(`/v1/goals/${goalId}`);
      const messages = await api<{ items: unknown[] }>(`/v1/groups/${groupId}/messages?limit=500`);
      expect(contents).toHaveLength(messages.items.length);
      expect(contents.filter((content) => content.includes('In which language?'))).toHaveLength(1);
    },
    GOAL_DEADLINE_MS + 30_000,
  );

  it(
    'shows the sub-goals formed for a goal as a tree that opens in place, by keyboard',
    async () => {
      const goalId = await submitGoal(
        'Form a sub-team to find in the documents how agent presence works, and write a short report.',
        'doc-researcher, writer',
      );
      await statusIs('completed');
      const goal = await api<GoalV1>(`/v1/goals/${goalId}`);
      const delegated = goal.tasks.find((task) => task.childGoalId);
      expect(delegated).toBeDefined();
      const child = await api<GoalV1>(`/v1/goals/${delegated!.childGoalId}`);
      const tree = page.getByRole('list', { name: 'Sub-goal tree' });
      const node = tree.getByRole('button', { name: /sub-team\)$/ }).first();
      await expect(node.getAttribute('aria-expanded')).resolves.toBe('false');
      await node.focus();
      await page.keyboard.press('Enter');
      await expect(node.getAttribute('aria-expanded')).resolves.toBe('true');
      const panel = page.getByRole('group', { name: /^Sub-goal: / });
      await panel
        .getByLabel('Sub-goal status')
        .filter({ hasText: /^completed$/ })
        .waitFor();
      const shown = (await panel.textContent()) ?? '';
      expect(shown).toContain(child.goal);
      for (const member of child.team) expect(shown).toContain(member.name);
      for (const task of child.tasks) expect(shown).toContain(task.assigneeName);
      // The sub-goal was formed with the depth the parent allowed, so it has none of its own.
      expect(child.depth).toBe(1);
      await expect(panel.getByRole('list', { name: 'Sub-goal tree' }).count()).resolves.toBe(0);
      await panel.getByText('No sub-goals of its own.').waitFor();
      await expectAccessible();
      await screenshot('sub-goals', page.getByRole('region', { name: 'Sub-goals' }));
      await panel.getByRole('link', { name: 'Open this goal' }).click();
      await page.waitForURL(new RegExp(`#/goals/${child.id}$`));
      await statusIs('completed');
    },
    GOAL_DEADLINE_MS + 30_000,
  );

  it('manages the account’s API keys: a new key is shown once, signs in, and is refused once revoked', async () => {
    await page.goto(`${stack.baseUrl}/#/keys`);
    const table = page.getByRole('table', { name: 'API keys' });
    // The key this console signed in with is listed, and marked as such.
    await table.getByText('(this console)').waitFor();
    const form = page.getByRole('region', { name: 'Create an API key' });
    await form.getByRole('textbox', { name: /^Name/ }).fill('console test key');
    await form.getByLabel('Expires in (days)').fill('7');
    await form.getByRole('button', { name: 'Create key' }).click();
    const key = ((await page.getByLabel('The new key').textContent()) ?? '').trim();
    expect(key).toMatch(/^ioa_[\w-]{40,}$/);
    const row = table.getByRole('row').filter({ hasText: 'console test key' });
    await row.getByText(`${key.slice(0, 8)}…`).waitFor();
    const me = await api<{ accountId: string }>('/v1/me');
    const listed = await api<{ items: { name: string; expiresAt: string }[] }>(`/v1/accounts/${me.accountId}/api-keys`);
    const stored = listed.items.find((item) => item.name === 'console test key');
    const lifetimeDays = (Date.parse(stored!.expiresAt) - Date.now()) / 86_400_000;
    expect(lifetimeDays).toBeGreaterThan(6.9);
    expect(lifetimeDays).toBeLessThanOrEqual(7);
    await expectAccessible();
    await screenshot('keys');

    const elsewhere = await browser.newContext();
    const signedIn = await elsewhere.newPage();
    await signedIn.goto(`${stack.baseUrl}/?key=${encodeURIComponent(key)}`);
    await signedIn.getByRole('navigation', { name: 'Main' }).waitFor();

    await row.getByRole('button', { name: 'Revoke console test key' }).click();
    await row.getByRole('button', { name: 'Confirm revoking console test key' }).click();
    await row
      .getByLabel('State of console test key')
      .filter({ hasText: /^revoked$/ })
      .waitFor();
    // Its text is no longer on the page once the person has moved on.
    await page.goto(`${stack.baseUrl}/#/goals`);
    await page.goto(`${stack.baseUrl}/#/keys`);
    await table.getByText('(this console)').waitFor();
    await expect(page.getByText(key).count()).resolves.toBe(0);

    const refused = await elsewhere.newPage();
    await refused.goto(stack.baseUrl);
    await refused.getByLabel('API key').fill(key);
    await refused.keyboard.press('Enter');
    await refused.getByRole('alert').waitFor();
    await expect(refused.getByRole('alert').textContent()).resolves.toMatch(/Not signed in.*revoked/i);
    await elsewhere.close();
  });

  it('shows an operator each event consumer and the dead letters, and replays one', async () => {
    // An event no handler can take: the scheduler's consumer of tasks-assigned gives up on it at once.
    const poison = '{"groupId": nope';
    const { seq } = await jetstream(stack.platform.client).publish(TasksAssignedV1.subject, poison);
    await page.goto(`${stack.baseUrl}/#/goals`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operations' }).click();
    await page.getByRole('heading', { name: 'Operations' }).waitFor();
    const letters = page.getByRole('table', { name: /^Dead letters/ });
    const row = letters.getByRole('row').filter({ hasText: `stream sequence ${seq},` });
    // The page asks again every few seconds: the dead letter appears without a reload.
    await row.waitFor({ timeout: 30_000 });
    await expect(row.textContent()).resolves.toMatch(
      /scheduler.*ioa\.chat\.tasks\.assigned\.v1.*Invalid payload.*not valid JSON.*"groupId": nope/s,
    );
    const consumer = page
      .getByRole('table', { name: 'Event consumers' })
      .getByRole('row')
      .filter({ hasText: TasksAssignedV1.subject })
      .filter({ hasText: 'scheduler' });
    const deadLetterCount = Number(await consumer.getByRole('cell').nth(5).textContent());
    expect(deadLetterCount).toBeGreaterThanOrEqual(1);
    await expect(consumer.textContent()).resolves.toContain('moving');
    await expect(page.getByRole('table', { name: 'Services' }).textContent()).resolves.toMatch(/scheduler\s*up/);
    await expectAccessible();
    await screenshot('operations');

    const id = Number(await row.getByRole('cell').first().textContent());
    await row.getByRole('button', { name: `Replay dead letter ${id}` }).click();
    await row.getByRole('button', { name: `Confirm replaying dead letter ${id}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Dead letter ${id} was published again on ${TasksAssignedV1.subject}` })
      .waitFor();
    // The body is as invalid as before: the consumer refuses it again, and it is back under a new id.
    const again = await expectEventually(
      async () => {
        const { items } = await api<{ items: Array<{ id: number; payload: string }> }>('/v1/dead-letters?limit=500');
        return items.some((letter) => letter.id === id)
          ? undefined
          : items.find((l) => l.id > id && l.payload === poison);
      },
      { timeoutMs: 30_000, message: 'the replayed event is a dead letter again, under a new id' },
    );
    await letters.getByRole('button', { name: `Replay dead letter ${again!.id}` }).waitFor({ timeout: 30_000 });
    await expect(letters.getByRole('button', { name: `Replay dead letter ${id}` }).count()).resolves.toBe(0);
  });

  it('fits a phone screen without sideways scrolling', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const small = await phone.newPage();
    await small.goto(`${stack.baseUrl}/?key=${TEST_ADMIN_API_KEY}#/goals`);
    await small.getByRole('heading', { name: 'Goals' }).waitFor();
    // Evaluated in the page, where `document` exists (this file is compiled for Node, without the DOM's types).
    const width = await small.evaluate<number>('document.documentElement.scrollWidth');
    expect(width).toBeLessThanOrEqual(390);
    // The header is fixed and its row does not wrap, so what does not fit is squeezed rather than scrolled: no
    // title, link or button in it may wrap onto a second line or be cut.
    const squeezed = await small.evaluate<string[]>(`(() => {
      const lines = (element) => {
        const tops = new Set();
        const texts = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
        for (let text = texts.nextNode(); text; text = texts.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(text);
          for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
        }
        return tops.size;
      };
      // Widths are rounded to whole pixels, so one pixel more is rounding, not a cut.
      const cut = (element) => element.scrollWidth > element.clientWidth + 1;
      return [...document.querySelectorAll('header h1, header a, header button')]
        .filter((element) => lines(element) > 1 || cut(element) || [...element.querySelectorAll('*')].some(cut))
        .map((element) => element.textContent.trim());
    })()`);
    expect(squeezed).toEqual([]);
    // No status is cut short ("co…") to fit a column of the goals list (the earlier tests made goals).
    await small.locator('.mantine-Badge-label').first().waitFor();
    const cutBadges = await small.evaluate<string[]>(
      '[...document.querySelectorAll(".mantine-Badge-label")].filter((label) => label.scrollWidth > label.clientWidth).map((label) => label.textContent)',
    );
    expect(cutBadges).toEqual([]);
    await expectAccessible(small);
    if (SCREENSHOTS) await small.screenshot({ path: join(SCREENSHOTS, 'phone.png'), fullPage: true });
    await phone.close();
  });
});
