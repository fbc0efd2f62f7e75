import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GoalSummaryV1, GroupSummaryV1, ListGoalsV1Response, ListGroupsV1Response } from '@ioa/contracts';
import { adminAuthHeaders, expectEventually } from '@ioa/testing';
import { startGatewayOverPlatform, type GatewayOverPlatform } from '../testing/gateway-over-platform.js';

/**
 * `GET /v1/goals` and `GET /v1/groups` over the real platform: goals submitted over REST are listed newest first,
 * a cursor walks the pages without a gap or a repeat, filters narrow the list, and bad parameters are a 400.
 */
describe('the goal and group lists over HTTP', () => {
  let stack: GatewayOverPlatform;
  const submitted: string[] = [];

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  // Sub-goals may form under these goals (the offline model may delegate), so most queries ask for top-level goals.
  /** Every goal page from the newest, following `nextCursor` (bounded, so a cursor that loops fails the test). */
  async function allGoals(query: string): Promise<GoalSummaryV1[]> {
    const items: GoalSummaryV1[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const suffix = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const { status, body } = await call<ListGoalsV1Response>('GET', `/v1/goals?${query}${suffix}`);
      expect(status).toBe(200);
      items.push(...body.items);
      if (!body.nextCursor) return items;
      cursor = body.nextCursor;
    }
    throw new Error('the goal pages never ended');
  }

  beforeAll(async () => {
    stack = await startGatewayOverPlatform();
    for (const goal of ['List me first', 'List me second', 'List me third, then cancel me']) {
      // Named members skip autonomous formation, so each goal gets a group whatever its text.
      const members = ['doc-researcher', 'writer'];
      const { status, body } = await call<{ id: string }>('POST', '/v1/goals', { goal, members, maxTurns: 4 });
      expect(status).toBe(202);
      submitted.push(body.id);
    }
    expect((await call('POST', `/v1/goals/${submitted[2]}/cancel`, {})).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('pages through every goal newest first, each exactly once, with its team, usage and budget', async () => {
    const items = await allGoals('limit=1&topLevelOnly=true');
    expect(items.map((goal) => goal.id)).toEqual([...submitted].reverse());
    const [newest] = items;
    expect(newest).toMatchObject({ goal: 'List me third, then cancel me', status: 'canceled', parentGoalId: null });
    expect(newest.usage).toEqual(expect.objectContaining({ promptTokens: expect.any(Number) }));
    expect(newest.budget).toEqual({});
    expect(Array.isArray(newest.team)).toBe(true);
  });

  it('filters by status, one or several, repeated or comma-separated', async () => {
    const canceled = await allGoals('status=canceled&topLevelOnly=true');
    expect(canceled.map((goal) => goal.id)).toEqual([submitted[2]]);
    const notCanceled = GOAL_STATUSES_EXCEPT_CANCELED.join(',');
    const others = await allGoals(`status=${notCanceled}&topLevelOnly=true`);
    expect(others.map((goal) => goal.id)).toEqual([submitted[1], submitted[0]]);
    const repeated = await allGoals('status=canceled&status=submitted&status=forming_team&status=working');
    expect(repeated.map((goal) => goal.id)).toContain(submitted[2]);
  });

  it('lists only top-level goals, or the sub-goals of one goal', async () => {
    expect((await allGoals('topLevelOnly=true')).length).toBe(3);
    expect(await allGoals(`parentGoalId=${submitted[0]}`)).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['status=sleeping', 'status'],
    ['topLevelOnly=maybe', 'topLevelOnly'],
    ['parentGoalId=not-a-uuid', 'parentGoalId'],
    ['cursor=garbage', 'cursor'],
    ['cursor=1700000000000_not-an-id', 'cursor'],
  ])('refuses ?%s with a 400 naming %s', async (query, field) => {
    const { status, body } = await call<{ message: string }>('GET', `/v1/goals?${query}`);
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toContain(field);
  });

  it('lists the groups of the goals, newest first, with members and last seq, and pages them', async () => {
    // Groups exist once teams formed: the two goals left running get one each (the canceled one may not).
    const groups = await expectEventually(
      async () => {
        const { body } = await call<ListGroupsV1Response>('GET', '/v1/groups?limit=100');
        const ours = body.items.filter((group) => submitted.includes(group.goalId));
        if (ours.length < 2) throw new Error(`${ours.length} of the goals have a group so far`);
        return ours;
      },
      { timeoutMs: 90_000, message: 'both running goals have a group' },
    );
    const byGoal = (goalId: string): GroupSummaryV1 | undefined => groups.find((group) => group.goalId === goalId);
    // Newest first by the group's own creation time: teams form concurrently, so the second goal's group may well
    // be opened before the first goal's; what the list promises is the order of `createdAt`, ties broken by id.
    const createdAt = groups.map((group) => Date.parse(group.createdAt));
    expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a));
    expect(byGoal(submitted[0])!.members.length).toBeGreaterThan(0);
    expect(byGoal(submitted[0])!.lastSeq).toBeGreaterThanOrEqual(0);

    const first = await call<ListGroupsV1Response>('GET', '/v1/groups?limit=1');
    expect(first.body.items).toHaveLength(1);
    const second = await call<ListGroupsV1Response>(
      'GET',
      `/v1/groups?limit=1&cursor=${encodeURIComponent(first.body.nextCursor!)}`,
    );
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);

    const { body: ofGoal } = await call<ListGroupsV1Response>('GET', `/v1/groups?goalId=${submitted[0]}`);
    expect(ofGoal.items.map((group) => group.goalId)).toEqual([submitted[0]]);
    const state = byGoal(submitted[0])!.state;
    const { body: inState } = await call<ListGroupsV1Response>('GET', `/v1/groups?state=${state}&limit=100`);
    expect(inState.items.every((group) => group.state === state)).toBe(true);
  }, 120_000);

  it.each([['limit=0'], ['state=asleep'], ['cursor=garbage'], ['goalId=42']])(
    'refuses /v1/groups?%s with a 400',
    async (query) => {
      expect((await call('GET', `/v1/groups?${query}`)).status).toBe(400);
    },
  );
});

const GOAL_STATUSES_EXCEPT_CANCELED = ['submitted', 'forming_team', 'working', 'input_required', 'completed', 'failed'];
