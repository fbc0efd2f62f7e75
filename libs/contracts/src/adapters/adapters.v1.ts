import {
  ArrayMaxSize,
  ArrayMinSize,
  IsBoolean,
  IsDateString,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { requestContract } from '../common/contract.js';
import { IsIntegerIn, IsNested, IsSlug, IsText } from '../common/validation.js';
import { AgentCardV1, AgentSkillV1, IsAgentVersion, IsOmittable } from '../registry/agent-card.v1.js';
import { TaskBriefV1 } from '../scheduler/tasks.v1.js';

/**
 * The adapters service speaks for agents that do not speak NATS: a remote A2A agent, an MCP server, an
 * OpenAI-compatible chat endpoint or a plain webhook. A person (or a program) registers such an agent here; the
 * adapters service writes its card to the registry (which shows the endpoint kind and, through `status`, whether
 * the endpoint is reachable) and keeps what must never be on a card — API keys, webhook secrets — in its own
 * schema.
 */

/** Endpoint kinds the adapters service serves. `nats` agents serve their task subject themselves. */
export const ADAPTED_ENDPOINT_KINDS = ['a2a', 'mcp', 'openai', 'http'] as const;
export type AdaptedEndpointKind = (typeof ADAPTED_ENDPOINT_KINDS)[number];

/** Shortest webhook secret accepted: an HMAC-SHA256 key shorter than this is guessable. */
export const WEBHOOK_SECRET_MIN_LENGTH = 16;

/** Header carrying `sha256=<hex HMAC of the raw body>` on webhook deliveries and callbacks. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-ioa-signature';

/**
 * How the adapter reaches the agent. Secrets (`apiKey`, `secret`) are write-only: no reply ever carries them.
 * @since 1
 */
export class AdaptedEndpointV1 {
  @IsIn(ADAPTED_ENDPOINT_KINDS)
  kind: AdaptedEndpointKind;

  /**
   * `a2a`: the agent's base URL (its card is read from `/.well-known/agent-card.json`). `mcp`: the Streamable HTTP
   * endpoint. `openai`: the API base URL (`…/v1`). `http`: the webhook the task is POSTed to.
   */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  @MaxLength(2000)
  url: string;

  /** `openai`: the model name sent with every call (required for that kind). */
  @IsOptional()
  @IsText(200)
  model?: string;

  /** `openai`: the system prompt that makes the model this agent. */
  @IsOptional()
  @IsText(20000)
  systemPrompt?: string;

  /**
   * The credential the agent wants, if any: `openai`: the API key; `a2a` and `mcp`: a bearer token, sent as
   * `Authorization: Bearer` on every call. Stored encrypted; write-only (replies say only `hasSecret`). Give the
   * endpoint again with a new value to rotate it.
   */
  @IsOptional()
  @IsText(500)
  apiKey?: string;

  /** `http`: the shared secret that signs deliveries and callbacks (HMAC-SHA256; required for that kind). */
  @IsOptional()
  @IsString()
  @MinLength(WEBHOOK_SECRET_MIN_LENGTH)
  @MaxLength(500)
  secret?: string;

  /** Timeout of one outbound call, in milliseconds (default: the service's `ADAPTERS_CALL_TIMEOUT_MS`). */
  @IsOptional()
  @IsIntegerIn(100, 600_000)
  timeoutMs?: number;
}

/**
 * Register an agent the adapters service speaks for. What the card says is taken from the endpoint where it can
 * be: an A2A agent's own card (name, description, skills, version), an MCP server's tools (its skills). Fields
 * given here override those; `openai` and `http` agents must give name, description and skills.
 * Registering the same name under the same owner again updates the agent.
 * @since 1
 */
export class RegisterAdaptedAgentV1Request {
  @IsText(200)
  owner: string;

  @IsNested(() => AdaptedEndpointV1)
  endpoint: AdaptedEndpointV1;

  @IsOptional()
  @IsSlug()
  name?: string;

  @IsOptional()
  @IsText(4000)
  description?: string;

  @IsOptional()
  @IsNested(() => AgentSkillV1, { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  skills?: AgentSkillV1[];

  @IsOptional()
  @IsAgentVersion()
  version?: string;

  /** Kept on the card, e.g. `{communicator: 'self'}` for an agent that takes its own turns in group chats. */
  @IsOmittable()
  @IsObject()
  metadata?: Record<string, unknown>;
}

/** The endpoint as replies show it: never a secret. @since 1 */
export class AdaptedEndpointViewV1 {
  @IsIn(ADAPTED_ENDPOINT_KINDS)
  kind: AdaptedEndpointKind;

  @IsString()
  url: string;

  @IsOptional()
  @IsString()
  model?: string;

  /** Whether a secret or API key is set (never the value). */
  @IsBoolean()
  hasSecret: boolean;

  /** Whether the last probe of the endpoint succeeded; an unreachable agent stops heartbeating and goes offline. */
  @IsBoolean()
  reachable: boolean;

  /** Why the last probe or call failed, when it did. */
  @IsOptional()
  @IsString()
  lastError?: string;

  @IsOptional()
  @IsDateString()
  lastProbedAt?: string;

  /** `http`: where the webhook sends a late result (after answering `202`), signed with its secret. */
  @IsOptional()
  @IsString()
  callbackUrlTemplate?: string;
}

/** @since 1 */
export class AdaptedAgentV1 {
  @IsNested(() => AgentCardV1)
  agent: AgentCardV1;

  @IsNested(() => AdaptedEndpointViewV1)
  endpoint: AdaptedEndpointViewV1;
}

export const RegisterAdaptedAgentV1 = requestContract<RegisterAdaptedAgentV1Request, AdaptedAgentV1>({
  subject: 'ioa.adapters.agent.register.v1',
  owner: 'adapters',
  request: RegisterAdaptedAgentV1Request,
  response: AdaptedAgentV1,
  summary:
    'Register an agent reached over A2A, MCP, an OpenAI-compatible endpoint or a webhook; the adapters service ' +
    'writes its card to the registry and serves its tasks.',
  since: '1',
});

/**
 * Change an adapted agent; absent fields keep their value. A new `endpoint` replaces the old one whole (give the
 * secret again). Only the owner may.
 * @since 1
 */
export class UpdateAdaptedAgentV1Request {
  @IsUUID()
  id: string;

  @IsText(200)
  owner: string;

  @IsOmittable()
  @IsNested(() => AdaptedEndpointV1)
  endpoint?: AdaptedEndpointV1;

  @IsOmittable()
  @IsText(4000)
  description?: string;

  @IsOmittable()
  @IsNested(() => AgentSkillV1, { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  skills?: AgentSkillV1[];

  @IsOmittable()
  @IsAgentVersion()
  version?: string;

  @IsOmittable()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export const UpdateAdaptedAgentV1 = requestContract<UpdateAdaptedAgentV1Request, AdaptedAgentV1>({
  subject: 'ioa.adapters.agent.update.v1',
  owner: 'adapters',
  request: UpdateAdaptedAgentV1Request,
  response: AdaptedAgentV1,
  summary: "Change an adapted agent's endpoint or card fields. Only its owner may.",
  since: '1',
});

/** @since 1 */
export class DeregisterAdaptedAgentV1Request {
  @IsUUID()
  id: string;

  @IsText(200)
  owner: string;
}

/** @since 1 */
export class DeregisterAdaptedAgentV1Response {
  @IsUUID()
  id: string;

  @IsBoolean()
  deregistered: boolean;
}

export const DeregisterAdaptedAgentV1 = requestContract<
  DeregisterAdaptedAgentV1Request,
  DeregisterAdaptedAgentV1Response
>({
  subject: 'ioa.adapters.agent.deregister.v1',
  owner: 'adapters',
  request: DeregisterAdaptedAgentV1Request,
  response: DeregisterAdaptedAgentV1Response,
  summary: 'Remove an adapted agent: its card leaves the registry and its endpoint settings are deleted.',
  since: '1',
});

/** @since 1 */
export class GetAdaptedAgentV1Request {
  @IsUUID()
  id: string;
}

export const GetAdaptedAgentV1 = requestContract<GetAdaptedAgentV1Request, AdaptedAgentV1>({
  subject: 'ioa.adapters.agent.get.v1',
  owner: 'adapters',
  request: GetAdaptedAgentV1Request,
  response: AdaptedAgentV1,
  summary: 'An adapted agent: its card, endpoint kind and URL, and whether the endpoint is reachable.',
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// The webhook (`http`) adapter contract: plain HTTP, not NATS, so a webhook needs nothing of ours.

/**
 * What the adapter POSTs to an `http` agent's URL, signed in the `x-ioa-signature` header with the agent's
 * secret. The webhook answers `200` with a `WebhookResultV1`, or `202` and later POSTs a `WebhookResultV1` to
 * `callbackUrl`, signed the same way. A delivery may be repeated after a network error: `taskId` identifies it.
 * @since 1
 */
export class WebhookDeliveryV1 {
  @IsUUID()
  taskId: string;

  @IsUUID()
  goalId: string;

  @IsUUID()
  agentId: string;

  @IsNested(() => TaskBriefV1)
  brief: TaskBriefV1;

  @IsDateString()
  deadline: string;

  /** Where a late result goes (after answering `202`). */
  @IsString()
  callbackUrl: string;
}

export const WEBHOOK_RESULT_STATES = ['working', 'completed', 'failed', 'rejected'] as const;

/**
 * A webhook's answer, in the `200` response or in a callback: `completed` with `result`, `failed` / `rejected`
 * with `reason`, or (callbacks only) `working` with a progress note in `reason`.
 * @since 1
 */
export class WebhookResultV1 {
  @IsOptional()
  @IsIn(WEBHOOK_RESULT_STATES)
  state?: (typeof WEBHOOK_RESULT_STATES)[number] = 'completed';

  @ValidateIf((result: WebhookResultV1) => (result.state ?? 'completed') === 'completed')
  @IsString()
  @MaxLength(100000)
  result?: string;

  @IsOptional()
  @IsString()
  @MaxLength(10000)
  reason?: string;
}
