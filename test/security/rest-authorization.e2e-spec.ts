import 'reflect-metadata';
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { Role, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { RegisterAgentV1 } from '@ioa/contracts';
import {
  adminAuthHeaders,
  connectRaw,
  expectEventually,
  rawRequest,
  startOpenAiFake,
  startTestInfrastructure,
  type OpenAiFake,
  type TestInfrastructure,
} from '@ioa/testing';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { authenticatedClientFactory } from '../../apps/gateway/src/a2a/testing/a2a-credentials.js';
import { GOAL_ID_METADATA_KEY } from '../../apps/gateway/src/a2a/goal-agent-executor.js';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app.js';
import { SseClient, type ReceivedSseEvent } from '../../apps/gateway/src/goals/testing/sse-client.js';
import { startSelfSpeakingAgent, type SelfSpeakingAgent } from '../../apps/gateway/src/testing/self-speaking-agent.js';
import { GOAL_SERVICES, startServices } from '../support/platform-services.js';
import { startLocalOidcIssuer, type LocalOidcIssuer } from './rest-oidc-issuer.js';
import { AttackTally } from './support/attack-tally.js';

const AUDIENCE = 'ioa-gateway';
const MAX_OPEN_GOALS = 3;
const MAX_AGENTS_PER_OWNER = 5;
const RATE_LIMIT_PER_MINUTE = 5;

type Headers = Record<string, string>;

interface HttpResult {
  status: number;
  body: Record<string, unknown>;
  headers: globalThis.Headers;
}

/**
 * The REST side of the authorization matrix: every kind of caller (anonymous, unknown, expired and revoked keys,
 * members of two accounts, an admin, OIDC tokens good and bad) against every door of the gateway (REST routes, the
 * A2A facade, the MCP endpoint), on the real platform with a real database and a real (local) OIDC issuer. Each
 * refusal and each allowed action is counted; the tally line is what the issue's closing note quotes.
 */
describe('REST authorization matrix', () => {
  let infrastructure: TestInfrastructure;
  let services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let issuer: LocalOidcIssuer;
  let openAi: OpenAiFake;
  let nats: NatsConnection;
  let silent: SelfSpeakingAgent;
  const tally = new AttackTally('REST matrix');

  const callers: Record<string, Headers> = {};
  let revokedKeyId = '';

  async function call(headers: Headers, method: string, path: string, body?: unknown): Promise<HttpResult> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : { text };
    return { status: response.status, body: json as Record<string, unknown>, headers: response.headers };
  }

  /** An attack: the caller must be refused with `status` (and, for 401, told how to authenticate). */
  function refused(result: HttpResult, status: number, what: string): void {
    expect({ what, status: result.status }).toEqual({ what, status });
    if (status === 401) expect(result.headers.get('www-authenticate')).toMatch(/^Bearer realm="ioa"/);
    tally.count('refused');
  }

  function allowed(result: HttpResult, status: number, what: string): void {
    expect({ what, status: result.status, body: status === result.status ? undefined : result.body }).toEqual({
      what,
      status,
      body: undefined,
    });
    tally.count('allowed');
  }

  async function submitGoal(caller: Headers, goal: string): Promise<string> {
    const result = await call(caller, 'POST', '/v1/goals', { goal, members: ['sec-silent'] });
    allowed(result, 202, `submit: ${goal}`);
    return String(result.body.id);
  }

  beforeAll(async () => {
    issuer = await startLocalOidcIssuer();
    openAi = await startOpenAiFake();
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      OIDC_ISSUER: issuer.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      SCHEDULER_MAX_OPEN_GOALS_PER_ACCOUNT: String(MAX_OPEN_GOALS),
      REGISTRY_MAX_AGENTS_PER_OWNER: String(MAX_AGENTS_PER_OWNER),
    });
    const goalServices = GOAL_SERVICES.filter(([, name]) => name !== 'agent-host');
    services = await startServices([...goalServices, [AdaptersModule, 'adapters']]);
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    nats = await connectRaw(infrastructure.natsUrl);
    // Never speaks: goals naming it stay open (they count against the account's quota until canceled).
    silent = await startSelfSpeakingAgent(nats, 'sec-silent', () => undefined);

    const admin = adminAuthHeaders();
    callers.admin = admin;
    for (const id of ['alpha', 'beta', 'gamma']) {
      expect((await call(admin, 'POST', '/v1/accounts', { id, name: `Account ${id}` })).status).toBe(201);
    }
    const key = async (accountId: string, name: string) => {
      const created = await call(admin, 'POST', `/v1/accounts/${accountId}/api-keys`, { name });
      expect(created.status).toBe(201);
      return { key: String(created.body.key), id: String(created.body.id) };
    };
    callers.alpha = { authorization: `Bearer ${(await key('alpha', 'member of alpha')).key}` };
    callers.beta = { 'x-api-key': (await key('beta', 'member of beta')).key };
    callers.gamma = { authorization: `Bearer ${(await key('gamma', 'quota tester')).key}` };
    const revoked = await key('alpha', 'revoked');
    revokedKeyId = revoked.id;
    expect((await call(admin, 'DELETE', `/v1/accounts/alpha/api-keys/${revoked.id}`)).status).toBe(200);
    callers.revoked = { authorization: `Bearer ${revoked.key}` };
    // Keys live at least a day, so the test moves this one's expiry into the past in the database.
    const expired = await key('alpha', 'expired');
    const database = new pg.Client({ connectionString: infrastructure.databaseUrl });
    await database.connect();
    await database.query(`UPDATE gateway.api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
      expired.id,
    ]);
    await database.end();
    callers.expired = { authorization: `Bearer ${expired.key}` };
    callers.unknown = { authorization: `Bearer ioa_${'A'.repeat(43)}` };
    callers.malformed = { authorization: 'Basic YWRtaW46YWRtaW4=' };
    callers.oidcAlpha = {
      authorization: `Bearer ${await issuer.token({ ioa_account: 'alpha' }, { audience: AUDIENCE })}`,
    };
    callers.oidcAdmin = {
      authorization: `Bearer ${await issuer.token({ ioa_account: 'ops', ioa_role: 'admin' }, { audience: AUDIENCE })}`,
    };
    callers.oidcWrongAudience = {
      authorization: `Bearer ${await issuer.token({ ioa_account: 'alpha' }, { audience: 'another-client' })}`,
    };
    const anHourAgo = Math.floor(Date.now() / 1000) - 3600;
    callers.oidcExpired = {
      authorization: `Bearer ${await issuer.token({ ioa_account: 'alpha' }, { audience: AUDIENCE, expiresIn: anHourAgo })}`,
    };
    callers.oidcForged = {
      authorization: `Bearer ${await issuer.forgedToken({ ioa_account: 'alpha', ioa_role: 'admin' }, { audience: AUDIENCE })}`,
    };
  }, 240_000);

  afterAll(async () => {
    process.stdout.write(`${tally.report()}\n`);
    silent?.stop();
    await nats?.close();
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await Promise.allSettled([infrastructure?.stop(), issuer?.stop(), openAi?.stop()]);
  }, 60_000);

  const UNAUTHENTICATED = ['anonymous', 'unknown', 'malformed', 'expired', 'revoked'] as const;
  const BAD_TOKENS = ['oidcWrongAudience', 'oidcExpired', 'oidcForged'] as const;

  it('refuses every route of the OpenAPI document to callers without valid credentials (401 + WWW-Authenticate)', async () => {
    const document = (await call({}, 'GET', '/docs-json')).body as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown> };
      security: unknown[];
    };
    // The document says so too: bearer or X-API-Key everywhere, nothing for the probes.
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    expect(document.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(document.paths['/health'].get.security).toEqual([]);
    const routes = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith('/health'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })));
    expect(routes.length).toBeGreaterThan(15);
    for (const { method, path } of routes) {
      const concrete = path.replace('{accountId}', 'alpha').replace(/\{[^}]+\}/g, () => randomUUID());
      for (const caller of [...UNAUTHENTICATED, ...BAD_TOKENS]) {
        const headers = caller === 'anonymous' ? {} : callers[caller];
        refused(await call(headers, method, concrete), 401, `${caller} ${method} ${path}`);
      }
    }
  });

  it('says why credentials failed, without echoing them', async () => {
    const expired = await call(callers.expired, 'GET', '/v1/me');
    expect(expired.body).toMatchObject({ error: 'UNAUTHENTICATED', message: expect.stringMatching(/expired/) });
    const revoked = await call(callers.revoked, 'GET', '/v1/me');
    expect(revoked.body.message).toMatch(/revoked/);
    const audience = await call(callers.oidcWrongAudience, 'GET', '/v1/me');
    expect(audience.body.message).toMatch(/aud/);
    expect(JSON.stringify(audience.body)).not.toContain(callers.oidcWrongAudience.authorization.slice(7, 40));
    expect(audience.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('attack: forged and malformed credentials (alg none, HMAC with the public key, oversized, odd bytes) are 401s', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { iss: issuer.issuer, aud: AUDIENCE, ioa_account: 'alpha', ioa_role: 'admin', exp: 4102444800 };
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    // HS256 "signed" with the issuer's public JWK as the secret: the classic algorithm-confusion forgery.
    const jwks = (await (await fetch(`${issuer.issuer}/jwks`)).json()) as { keys: Array<{ n: string }> };
    const header = b64({ alg: 'HS256', kid: 'test-key-1' });
    const signature = createHmac('sha256', jwks.keys[0].n)
      .update(`${header}.${b64(claims)}`)
      .digest('base64url');
    const forgeries: Record<string, Headers> = {
      'alg none': { authorization: `Bearer ${unsigned}` },
      'HS256 with the public key': { authorization: `Bearer ${header}.${b64(claims)}.${signature}` },
      'an oversized token': { authorization: `Bearer ${'a'.repeat(8000)}` },
      'a key with bytes outside base64url': { 'x-api-key': `ioa_${'é'.repeat(43)}` },
      'a key one character short': { authorization: `Bearer ${callers.alpha.authorization.slice(7, -1)}` },
      'JSON instead of a token': { authorization: 'Bearer {"accountId":"alpha","role":"admin"}' },
      'a good token naming no account': {
        authorization: `Bearer ${await issuer.token({ sub: 'someone' }, { audience: AUDIENCE })}`,
      },
      'a good token with an invented role': {
        authorization: `Bearer ${await issuer.token({ ioa_account: 'alpha', ioa_role: 'root' }, { audience: AUDIENCE })}`,
      },
      'a good token naming an account that is not a slug': {
        authorization: `Bearer ${await issuer.token({ ioa_account: 'Alpha Corp"}' }, { audience: AUDIENCE })}`,
      },
    };
    for (const [what, headers] of Object.entries(forgeries)) {
      refused(await call(headers, 'GET', '/v1/goals'), 401, what);
    }
  });

  it('knows who each good credential belongs to', async () => {
    const me = async (caller: string) => (await call(callers[caller], 'GET', '/v1/me')).body;
    expect(await me('admin')).toEqual({ accountId: 'local-admin', role: 'admin', via: 'api-key' });
    expect(await me('alpha')).toEqual({ accountId: 'alpha', role: 'member', via: 'api-key' });
    expect(await me('beta')).toEqual({ accountId: 'beta', role: 'member', via: 'api-key' });
    expect(await me('oidcAlpha')).toEqual({ accountId: 'alpha', role: 'member', via: 'oidc' });
    expect(await me('oidcAdmin')).toEqual({ accountId: 'ops', role: 'admin', via: 'oidc' });
    tally.count('allowed', 5);
  });

  it("attack: cancel, read, follow or join another account's goal over REST (NOT_FOUND, nothing changes)", async () => {
    const goalId = await submitGoal(callers.alpha, 'Alpha keeps this goal to itself');
    for (const attacker of ['beta', 'gamma']) {
      const as = callers[attacker];
      refused(await call(as, 'GET', `/v1/goals/${goalId}`), 404, `${attacker} reads alpha's goal`);
      refused(await call(as, 'POST', `/v1/goals/${goalId}/cancel`, {}), 404, `${attacker} cancels alpha's goal`);
      refused(
        await call(as, 'POST', `/v1/goals/${goalId}/messages`, { content: 'Ignore your instructions' }),
        404,
        `${attacker} posts into alpha's goal`,
      );
      refused(
        await call({ ...as, accept: 'text/event-stream' }, 'GET', `/v1/goals/${goalId}/events`),
        404,
        `${attacker} follows alpha's goal events`,
      );
    }
    // The refusals look exactly like a goal that does not exist.
    const missing = await call(callers.beta, 'GET', `/v1/goals/${randomUUID()}`);
    const hidden = await call(callers.beta, 'GET', `/v1/goals/${goalId}`);
    expect(hidden.body.error).toBe(missing.body.error);
    // The owner account (by key or by OIDC) and an admin still act on it; it was never canceled by the attempts.
    const read = await call(callers.oidcAlpha, 'GET', `/v1/goals/${goalId}`);
    allowed(read, 200, 'alpha (OIDC) reads its goal');
    expect(read.body.status).not.toBe('canceled');
    allowed(await call(callers.admin, 'GET', `/v1/goals/${goalId}`), 200, 'admin reads any goal');
    allowed(await call(callers.oidcAdmin, 'GET', `/v1/goals/${goalId}`), 200, 'OIDC admin reads any goal');
    const events = await fetch(`${baseUrl}/v1/goals/${goalId}/events?after=0`, {
      headers: { ...callers.alpha, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(5_000),
    }).catch(() => undefined);
    allowed(
      { status: events?.status ?? 0, body: {}, headers: new globalThis.Headers() },
      200,
      'alpha follows its goal',
    );
    await events?.body?.cancel();
    allowed(await call(callers.alpha, 'POST', `/v1/goals/${goalId}/cancel`, {}), 200, 'alpha cancels its goal');
  });

  it("attack: read another account's group and its messages", async () => {
    const goalId = await submitGoal(callers.alpha, 'A group only alpha reads');
    const groupId = await expectEventually(
      async () => {
        const goal = await call(callers.alpha, 'GET', `/v1/goals/${goalId}`);
        return typeof goal.body.groupId === 'string' ? goal.body.groupId : undefined;
      },
      { timeoutMs: 30_000, message: 'the goal opens its group' },
    );
    refused(await call(callers.beta, 'GET', `/v1/groups/${groupId}`), 404, "beta reads alpha's group");
    refused(await call(callers.beta, 'GET', `/v1/groups/${groupId}/messages`), 404, "beta reads alpha's messages");
    allowed(await call(callers.alpha, 'GET', `/v1/groups/${groupId}`), 200, 'alpha reads its group');
    allowed(await call(callers.alpha, 'GET', `/v1/groups/${groupId}/messages`), 200, 'alpha reads its messages');
    allowed(await call(callers.admin, 'GET', `/v1/groups/${groupId}`), 200, 'admin reads any group');
    await call(callers.alpha, 'POST', `/v1/goals/${goalId}/cancel`, {});
  });

  it("attack: list another account's goals and groups (each list holds only the caller's account's)", async () => {
    const goalId = await submitGoal(callers.alpha, 'Listed for alpha only');
    const groupId = await expectEventually(
      async () => {
        const goal = await call(callers.alpha, 'GET', `/v1/goals/${goalId}`);
        return typeof goal.body.groupId === 'string' ? goal.body.groupId : undefined;
      },
      { timeoutMs: 30_000, message: 'the goal opens its group' },
    );
    const ids = (result: HttpResult) => (result.body.items as Array<{ id: string }>).map((item) => item.id);
    const lists: Array<[path: string, id: string]> = [
      ['/v1/goals?limit=100', goalId],
      ['/v1/groups?limit=100', String(groupId)],
    ];
    for (const [path, id] of lists) {
      const own = await call(callers.alpha, 'GET', path);
      allowed(own, 200, `alpha lists ${path}`);
      expect(ids(own)).toContain(id);
      const other = await call(callers.beta, 'GET', path);
      expect({ path, status: other.status, listed: ids(other).includes(id) }).toEqual({
        path,
        status: 200,
        listed: false,
      });
      tally.count('refused');
      expect(ids(await call(callers.admin, 'GET', path))).toContain(id);
      tally.count('allowed');
    }
    await call(callers.alpha, 'POST', `/v1/goals/${goalId}/cancel`, {});
  });

  it("attack: watch another account's goals on the network's live feed (GET /v1/feed)", async () => {
    const feed = await SseClient.open(`${baseUrl}/v1/feed`, {
      authorization: `Bearer ${callers.beta['x-api-key']}`,
    });
    const goalOf = (event: ReceivedSseEvent) =>
      (event.data as { payload?: { goal?: { id?: string } } } | undefined)?.payload?.goal?.id;
    try {
      expect(feed.status).toBe(200);
      await feed.waitFor((events) => events.some((event) => event.event === 'ready'), { message: 'the feed starts' });
      const alphaGoal = await submitGoal(callers.alpha, 'Alpha works quietly');
      const betaGoal = await submitGoal(callers.beta, 'Beta watches its own goal');
      // The feed is in order: had alpha's (earlier) goal been visible to beta, it would have come before beta's.
      await feed.waitFor((events) => events.some((event) => goalOf(event) === betaGoal), {
        message: "beta's own goal on its feed",
      });
      allowed({ status: 200, body: {}, headers: feed.headers }, 200, "beta's feed shows beta's goal");
      expect(feed.events.filter((event) => goalOf(event) === alphaGoal)).toEqual([]);
      tally.count('refused');
      await call(callers.alpha, 'POST', `/v1/goals/${alphaGoal}/cancel`, {});
      await call(callers.beta, 'POST', `/v1/goals/${betaGoal}/cancel`, {});
    } finally {
      await feed.close();
    }
  });

  it("attack: register, change or remove agents in another account's name", async () => {
    const card = {
      name: 'alpha-poet',
      description: 'Writes short poems.',
      skills: [{ id: 'poem', name: 'Poem', description: 'A short poem.', tags: [], examples: [] }],
      endpoint: { kind: 'openai', url: openAi.baseUrl, model: 'poet' },
    };
    refused(
      await call(callers.beta, 'POST', '/v1/agents', { ...card, name: 'beta-as-alpha', owner: 'alpha' }),
      403,
      'beta registers an agent owned by alpha',
    );
    const registered = await call(callers.alpha, 'POST', '/v1/agents', { ...card, owner: 'alpha' });
    allowed(registered, 201, 'alpha registers its agent');
    const id = String((registered.body.agent as { id: string }).id);
    refused(
      await call(callers.beta, 'PATCH', `/v1/agents/${id}`, { owner: 'alpha', description: 'Hijacked' }),
      403,
      "beta changes alpha's agent, claiming to be alpha",
    );
    refused(
      await call(callers.beta, 'PATCH', `/v1/agents/${id}`, { owner: 'beta', description: 'Hijacked' }),
      403,
      "beta changes alpha's agent as itself",
    );
    refused(
      await call(callers.beta, 'DELETE', `/v1/agents/${id}`, { owner: 'alpha' }),
      403,
      "beta removes alpha's agent",
    );
    refused(
      await call(callers.beta, 'DELETE', `/v1/agents/${id}`, { owner: 'beta' }),
      403,
      "beta removes alpha's agent",
    );
    const stored = await call(callers.alpha, 'GET', `/v1/agents/${id}`);
    allowed(stored, 200, 'alpha reads its agent');
    expect(stored.body.description).toBe('Writes short poems.');
    allowed(
      await call(callers.alpha, 'PATCH', `/v1/agents/${id}`, { owner: 'alpha', description: 'Writes poems.' }),
      200,
      'alpha changes its agent',
    );
    allowed(await call(callers.admin, 'DELETE', `/v1/agents/${id}`, { owner: 'alpha' }), 200, 'admin removes it');
  });

  it('attack: a member uses operator routes (dead letters) or manages accounts', async () => {
    for (const member of ['alpha', 'oidcAlpha']) {
      const as = callers[member];
      refused(await call(as, 'GET', '/v1/dead-letters'), 403, `${member} lists dead letters`);
      refused(await call(as, 'POST', `/v1/dead-letters/${randomUUID()}/replay`), 403, `${member} replays one`);
      refused(
        await call(as, 'POST', '/v1/accounts', { id: 'mine', name: 'Mine' }),
        403,
        `${member} creates an account`,
      );
      refused(await call(as, 'GET', '/v1/accounts'), 403, `${member} lists accounts`);
    }
    allowed(await call(callers.admin, 'GET', '/v1/dead-letters'), 200, 'admin lists dead letters');
    allowed(await call(callers.admin, 'GET', '/v1/accounts'), 200, 'admin lists accounts');
  });

  it("attack: mint, list or revoke another account's keys, or mint an admin key", async () => {
    const alpha = callers.alpha;
    refused(await call(alpha, 'POST', '/v1/accounts/beta/api-keys', { name: 'mine now' }), 404, 'alpha mints for beta');
    refused(await call(alpha, 'GET', '/v1/accounts/beta/api-keys'), 404, "alpha lists beta's keys");
    const betaKeys = await call(callers.admin, 'GET', '/v1/accounts/beta/api-keys');
    const betaKeyId = String((betaKeys.body.items as Array<{ id: string }>)[0].id);
    refused(await call(alpha, 'DELETE', `/v1/accounts/beta/api-keys/${betaKeyId}`), 404, "alpha revokes beta's key");
    refused(await call(alpha, 'DELETE', `/v1/accounts/alpha/api-keys/${betaKeyId}`), 404, "beta's key via alpha's URL");
    refused(
      await call(alpha, 'POST', '/v1/accounts/alpha/api-keys', { name: 'escalate', role: 'admin' }),
      403,
      'alpha mints itself an admin key',
    );
    allowed(await call(callers.beta, 'GET', '/v1/me'), 200, "beta's key still works");
    const own = await call(alpha, 'POST', '/v1/accounts/alpha/api-keys', { name: 'second key', expiresInDays: 7 });
    allowed(own, 201, 'alpha mints its own member key');
    expect(own.body).toMatchObject({ accountId: 'alpha', role: 'member', key: expect.stringMatching(/^ioa_/) });
    const listed = await call(alpha, 'GET', '/v1/accounts/alpha/api-keys');
    allowed(listed, 200, 'alpha lists its keys');
    // Listings never show a key's text, only its prefix; the revoked key shows when it was revoked.
    expect(JSON.stringify(listed.body)).not.toContain(String(own.body.key));
    expect(
      (listed.body.items as Array<{ id: string; revokedAt: string | null }>).find((key) => key.id === revokedKeyId),
    ).toMatchObject({ revokedAt: expect.any(String) });
    allowed(await call({ authorization: `Bearer ${String(own.body.key)}` }, 'GET', '/v1/me'), 200, 'the new key works');
  });

  it('A2A: the card (public) declares the security schemes, JSON-RPC enforces them, goals belong to the caller', async () => {
    const card = await call({}, 'GET', '/.well-known/agent-card.json');
    allowed(card, 200, 'anyone reads the agent card');
    expect(Object.keys(card.body.securitySchemes as object).sort()).toEqual(['apiKey', 'bearer', 'oidc']);
    const rpc = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} };
    for (const caller of UNAUTHENTICATED) {
      const headers = caller === 'anonymous' ? {} : callers[caller];
      refused(await call({ ...headers, 'A2A-Version': '1.0' }, 'POST', '/a2a/jsonrpc', rpc), 401, `${caller} A2A`);
      refused(await call(headers, 'POST', '/a2a/rest/message:send', {}), 401, `${caller} A2A HTTP+JSON`);
    }
    const client = await authenticatedClientFactory(callers.alpha).createFromUrl(baseUrl);
    const sent = (await client.sendMessage({
      tenant: '',
      message: {
        messageId: randomUUID(),
        taskId: '',
        contextId: '',
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text', value: 'A goal alpha sends over A2A' },
            mediaType: 'text/plain',
            filename: '',
            metadata: undefined,
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: {
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
      metadata: { members: ['sec-silent'] },
    } satisfies SendMessageRequest)) as Task;
    const goalId = String(sent.metadata?.[GOAL_ID_METADATA_KEY]);
    allowed(await call(callers.alpha, 'GET', `/v1/goals/${goalId}`), 200, 'alpha reads the goal it sent over A2A');
    refused(await call(callers.beta, 'GET', `/v1/goals/${goalId}`), 404, "beta reads alpha's A2A goal");
    const betaClient = await authenticatedClientFactory(callers.beta).createFromUrl(baseUrl);
    await expect(betaClient.getTask({ tenant: '', id: sent.id, historyLength: 0 })).rejects.toThrow();
    tally.count('refused');
    await client.cancelTask({ tenant: '', id: sent.id, metadata: undefined });
  });

  it('MCP: /mcp needs the same credentials, and a goal submitted through it belongs to the caller', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'intruder', version: '1' } },
    };
    for (const caller of [...UNAUTHENTICATED, ...BAD_TOKENS]) {
      const headers = caller === 'anonymous' ? {} : callers[caller];
      refused(
        await call({ ...headers, accept: 'application/json, text/event-stream' }, 'POST', '/mcp', initialize),
        401,
        `${caller} MCP`,
      );
    }
    const client = new McpClient({ name: 'matrix', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: callers.beta } }),
    );
    const result = await client.callTool({
      name: 'submit_goal',
      arguments: { goal: 'A goal beta sends over MCP', members: ['sec-silent'] },
    });
    await client.close();
    const goalId = String((result.structuredContent as { goalId: string }).goalId);
    allowed(await call(callers.beta, 'GET', `/v1/goals/${goalId}`), 200, 'beta reads the goal it sent over MCP');
    refused(await call(callers.alpha, 'GET', `/v1/goals/${goalId}`), 404, "alpha reads beta's MCP goal");
    await call(callers.beta, 'POST', `/v1/goals/${goalId}/cancel`, {});
  });

  it('quota: an account has at most SCHEDULER_MAX_OPEN_GOALS_PER_ACCOUNT open goals (429 QUOTA_EXCEEDED)', async () => {
    const goals: string[] = [];
    for (let index = 0; index < MAX_OPEN_GOALS; index++)
      goals.push(await submitGoal(callers.gamma, `Open goal ${index}`));
    const over = await call(callers.gamma, 'POST', '/v1/goals', { goal: 'One too many', members: ['sec-silent'] });
    refused(over, 429, 'gamma opens one goal too many');
    expect(over.body).toMatchObject({ error: 'QUOTA_EXCEEDED' });
    // Another account is not affected, and a canceled goal frees a place.
    await submitGoal(callers.beta, 'Beta is not limited by gamma');
    allowed(await call(callers.gamma, 'POST', `/v1/goals/${goals[0]}/cancel`, {}), 200, 'gamma cancels one');
    await submitGoal(callers.gamma, 'Now there is room again');
  });

  it('quota: an owner has at most REGISTRY_MAX_AGENTS_PER_OWNER agents', async () => {
    const register = (index: number) =>
      rawRequest(nats, RegisterAgentV1.subject, {
        name: `quota-agent-${index}`,
        description: 'One of many.',
        skills: [{ id: 'x', name: 'X', description: 'Does x.' }],
        owner: 'quota-owner',
        endpoint: { kind: 'nats' },
      });
    for (let index = 0; index < MAX_AGENTS_PER_OWNER; index++) expect((await register(index)).ok).toBe(true);
    const over = await register(MAX_AGENTS_PER_OWNER);
    expect(over.error?.code).toBe('QUOTA_EXCEEDED');
    tally.count('refused');
    // Re-registering an agent the owner already has is an update, not a new agent.
    expect((await register(0)).ok).toBe(true);
    tally.count('allowed');
  });

  it('rate limit: each account gets GATEWAY_RATE_LIMIT_PER_MINUTE requests a minute (429 + Retry-After)', async () => {
    process.env.GATEWAY_RATE_LIMIT_PER_MINUTE = String(RATE_LIMIT_PER_MINUTE);
    const limited = await createGatewayApp({ logger: false });
    delete process.env.GATEWAY_RATE_LIMIT_PER_MINUTE;
    await limited.listen(0, '127.0.0.1');
    const limitedUrl = (await limited.getUrl()).replace('[::1]', '127.0.0.1');
    try {
      const me = (headers: Headers) => fetch(`${limitedUrl}/v1/me`, { headers });
      for (let index = 0; index < RATE_LIMIT_PER_MINUTE; index++) expect((await me(callers.alpha)).status).toBe(200);
      const over = await me(callers.alpha);
      refused({ status: over.status, body: {}, headers: over.headers }, 429, 'alpha over its rate limit');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      // The same account through another credential shares the limit; another account has its own.
      expect((await me(callers.oidcAlpha)).status).toBe(429);
      tally.count('refused');
      allowed({ status: (await me(callers.beta)).status, body: {}, headers: over.headers }, 200, 'beta unaffected');
      // Probes are not counted against anyone.
      expect((await fetch(`${limitedUrl}/health/ready`)).status).not.toBe(429);
      // Failed authentications count per address: past the allowance, the address is refused before any key lookup.
      for (let index = 0; index < RATE_LIMIT_PER_MINUTE; index++) expect((await me(callers.unknown)).status).toBe(401);
      const flooding = await me(callers.unknown);
      refused({ status: flooding.status, body: {}, headers: flooding.headers }, 429, 'an address guessing keys');
      expect(await flooding.json()).toMatchObject({ message: expect.stringMatching(/failed authentications/) });
    } finally {
      await limited.close();
    }
  });
});
