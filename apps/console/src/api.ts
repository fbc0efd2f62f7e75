import type { AdaptedAgentV1, AgentCardV1, GoalEventV1, GoalV1, RegisterAdaptedAgentV1Request } from '@ioa/contracts';
import { followEventStream } from '@ioa/gateway-client';

/** Where the console keeps the API key: this tab only, gone when it closes. */
const KEY_STORAGE = 'ioa.apiKey';

export interface AgentItem extends AgentCardV1 {
  /** Discovery's score, on a search. */
  score?: number;
}

export interface GoalSummary {
  id: string;
  goal: string;
  status: GoalV1['status'];
  statusReason: string | null;
  usage: GoalV1['usage'];
  budget: GoalV1['budget'];
  createdAt: string;
}

export interface NewGoal {
  goal: string;
  members?: string[];
  maxTurns?: number;
  maxDepth?: number;
  budget?: { tokens?: number };
}

/** Who the signed-in key belongs to (`GET /v1/me`). */
export interface Principal {
  accountId: string;
  role: 'admin' | 'member';
  via: 'api-key' | 'oidc';
}

/** An API key as the gateway lists it: never its text, only its first characters. */
export interface ApiKeyItem {
  id: string;
  accountId: string;
  name: string;
  role: 'admin' | 'member';
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface NewApiKey {
  name: string;
  role?: 'admin' | 'member';
  expiresInDays?: number;
}

/** One JetStream consumer as a service reports it in `/health`. */
export interface ConsumerHealth {
  name: string;
  subject: string;
  pending: number;
  ackPending: number;
  maxAckPending: number;
  redelivered: number;
  deadLetters: number;
  stuck: boolean;
  stuckReason?: string;
}

export interface ServiceHealth {
  status: 'up' | 'degraded' | 'down';
  database?: 'up' | 'down';
  uptimeSeconds?: number;
  latencyMs?: number;
  reason?: string;
  consumers?: ConsumerHealth[];
}

/** `GET /health`: the verdict, and each service as it answered (or why it did not). */
export interface PlatformHealth {
  status: 'ok' | 'degraded';
  ready: boolean;
  nats: 'up' | 'down';
  database: 'up' | 'down' | 'unknown';
  services: Record<string, ServiceHealth>;
}

/** An event a service's consumer gave up on (`GET /v1/dead-letters`). */
export interface DeadLetterItem {
  id: number;
  service: string;
  consumer: string;
  subject: string;
  streamSequence: number;
  deliveries: number;
  reason: 'handler_failed' | 'invalid_payload';
  error: string;
  deadLetteredAt: string;
  payload: string;
  payloadTruncated: boolean;
  payloadBytes: number;
}

/** The REST API said no: its status and message, as the gateway wrote them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What to tell the person when a call failed: the gateway's own message when it gave one. */
export function errorMessage(failure: unknown): string {
  return failure instanceof ApiError ? failure.message : String(failure);
}

/** The gateway's REST API as the console uses it, with the person's API key on every call. */
export class ConsoleApi {
  constructor(readonly apiKey: string) {}

  static fromStorage(): ConsoleApi | undefined {
    const key = sessionStorage.getItem(KEY_STORAGE);
    return key ? new ConsoleApi(key) : undefined;
  }

  /** Checks the key with the gateway before keeping it. */
  static async signIn(apiKey: string): Promise<ConsoleApi> {
    const api = new ConsoleApi(apiKey.trim());
    await api.get('/v1/me');
    sessionStorage.setItem(KEY_STORAGE, api.apiKey);
    return api;
  }

  static signOut(): void {
    sessionStorage.removeItem(KEY_STORAGE);
  }

  private get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.apiKey}` };
  }

  async get<T>(path: string): Promise<T> {
    return this.read<T>(await fetch(path, { headers: this.headers }));
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(path, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return this.read<T>(response);
  }

  async delete<T>(path: string, body?: unknown): Promise<T> {
    const response = await fetch(path, {
      method: 'DELETE',
      headers: body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return this.read<T>(response);
  }

  me(): Promise<Principal> {
    return this.get('/v1/me');
  }

  /** Probably the key this console signed in with: the gateway shows only a key's first characters. */
  isSignedInWith(key: ApiKeyItem): boolean {
    return this.apiKey.startsWith(key.prefix);
  }

  apiKeys(accountId: string): Promise<{ items: ApiKeyItem[] }> {
    return this.get(`/v1/accounts/${encodeURIComponent(accountId)}/api-keys`);
  }

  /** The new key's text is in `key`, this once: the gateway keeps only its hash. */
  createApiKey(accountId: string, request: NewApiKey): Promise<ApiKeyItem & { key: string }> {
    return this.post(`/v1/accounts/${encodeURIComponent(accountId)}/api-keys`, request);
  }

  revokeApiKey(accountId: string, keyId: string): Promise<ApiKeyItem> {
    return this.delete(`/v1/accounts/${encodeURIComponent(accountId)}/api-keys/${encodeURIComponent(keyId)}`);
  }

  agents(query: string): Promise<{ items: AgentItem[] }> {
    const search = query.trim();
    return this.get(search ? `/v1/agents?q=${encodeURIComponent(search)}&topK=20` : '/v1/agents?limit=100');
  }

  /** An agent reached over A2A, MCP, an OpenAI-compatible endpoint or a webhook, served by the adapters service. */
  connectAgent(request: RegisterAdaptedAgentV1Request): Promise<AdaptedAgentV1> {
    return this.post('/v1/agents', request);
  }

  /** Removes an adapted agent; `owner` is its account (the gateway refuses another's unless the caller is admin). */
  removeAgent(agentId: string, owner: string): Promise<unknown> {
    return this.delete(`/v1/agents/${encodeURIComponent(agentId)}`, { owner });
  }

  /** The platform's health; a degraded platform answers 503 with the same body, which is what a person wants to see. */
  async health(): Promise<PlatformHealth> {
    const response = await fetch('/health', { headers: this.headers });
    if (response.status === 503) return (await response.json()) as PlatformHealth;
    return this.read<PlatformHealth>(response);
  }

  /** Every service's dead letters, oldest first (administrators only). */
  deadLetters(): Promise<{
    items: DeadLetterItem[];
    total: number;
    unavailable: { service: string; reason: string }[];
  }> {
    return this.get('/v1/dead-letters?limit=500');
  }

  /** Publishes a dead letter again on its original subject, and removes it from the dead letters. */
  replayDeadLetter(id: number): Promise<{ id: number; subject: string }> {
    return this.post(`/v1/dead-letters/${id}/replay`, {});
  }

  goals(cursor?: string): Promise<{ items: GoalSummary[]; nextCursor?: string }> {
    return this.get(`/v1/goals?limit=20&topLevelOnly=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  }

  goal(id: string): Promise<GoalV1> {
    return this.get(`/v1/goals/${encodeURIComponent(id)}`);
  }

  submitGoal(goal: NewGoal): Promise<{ id: string }> {
    return this.post('/v1/goals', goal);
  }

  sendMessage(goalId: string, content: string): Promise<unknown> {
    return this.post(`/v1/goals/${encodeURIComponent(goalId)}/messages`, { content });
  }

  cancelGoal(goalId: string): Promise<unknown> {
    return this.post(`/v1/goals/${encodeURIComponent(goalId)}/cancel`, { reason: 'Canceled from the console' });
  }

  /**
   * A goal's events in order, each once: the stream resumes after `afterSeq` (Last-Event-ID) when the connection
   * drops, and keeps following after the goal ends (a follow-up re-opens it).
   */
  async *goalEvents(goalId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<GoalEventV1> {
    const url = `/v1/goals/${encodeURIComponent(goalId)}/events?follow=true`;
    const stream = followEventStream(new URL(url, location.href).toString(), {
      headers: this.headers,
      signal,
      lastEventId: afterSeq > 0 ? String(afterSeq) : undefined,
      maxReconnects: Number.POSITIVE_INFINITY,
      reconnectDelayMs: 1000,
    });
    for await (const event of stream) {
      if (event.data) yield JSON.parse(event.data) as GoalEventV1;
    }
  }

  /** The network feed (agents and goals coming and going); each event only says that something changed. */
  async *feed(signal: AbortSignal): AsyncGenerator<string> {
    const stream = followEventStream(new URL('/v1/feed', location.href).toString(), {
      headers: this.headers,
      signal,
      maxReconnects: Number.POSITIVE_INFINITY,
      reconnectDelayMs: 2000,
    });
    for await (const event of stream) yield event.event;
  }

  private async read<T>(response: Response): Promise<T> {
    const text = await response.text();
    const body = text ? (JSON.parse(text) as unknown) : {};
    if (!response.ok) {
      const message = (body as { message?: unknown }).message;
      throw new ApiError(response.status, typeof message === 'string' ? message : `HTTP ${response.status}`);
    }
    return body as T;
  }
}
