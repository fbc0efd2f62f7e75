import {
  IsArray,
  IsDateString,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  MaxLength,
  ArrayMaxSize,
  ArrayMinSize,
  ValidateIf,
} from 'class-validator';
import { IsNested, IsSlug, IsText, IsTextList } from '../common/validation.js';

/**
 * The agent card: what an agent is, what it can do and how to reach it. Field names mirror the A2A Agent Card
 * (name, description, version, skills with id/name/description/tags/examples, defaultInputModes,
 * defaultOutputModes, provider, documentationUrl) so that the A2A bridge is a translation, not a redesign.
 */

/**
 * How the platform reaches an agent. `nats` agents serve their task subject themselves; the adapters service
 * serves the others (`a2a`, `mcp`, `openai`: an OpenAI-compatible chat endpoint, `http`: a webhook).
 */
export const ENDPOINT_KINDS = ['nats', 'a2a', 'mcp', 'openai', 'http'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

export const AGENT_STATUSES = ['online', 'offline'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** MIME-like media modes, as in A2A (`text/plain`, `application/json`, ...). */
const MODE_PATTERN = /^[a-z]+\/[a-z0-9.+-]+$/;

/** @since 1 */
export class AgentSkillV1 {
  /** Stable within the agent, e.g. `run-javascript`. */
  @IsSlug()
  id: string;

  @IsText(120)
  name: string;

  @IsText(2000)
  description: string;

  @IsTextList(20, 40)
  tags: string[] = [];

  /** Example prompts this skill handles well; discovery embeds them too. */
  @IsTextList(10, 500)
  examples: string[] = [];
}

/** @since 1 */
export class AgentEndpointV1 {
  @IsIn(ENDPOINT_KINDS)
  kind: EndpointKind;

  /** Required for `a2a`, `mcp`, `openai` and `http` endpoints. Never carries a secret. */
  @ValidateIf((endpoint: AgentEndpointV1) => endpoint.kind !== 'nats' || endpoint.url !== undefined)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https', 'ws', 'wss', 'nats'] })
  url?: string;
}

/** @since 1 */
export class AgentProviderV1 {
  @IsText(200)
  organization: string;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  url?: string;
}

/** Fields an agent describes itself with; shared by registration and the stored card. @since 1 */
export class AgentDescriptionV1 {
  /** Unique across the network. A slug, so it can appear in URLs and logs unchanged. */
  @IsSlug()
  name: string;

  @IsText(4000)
  description: string;

  @IsNested(() => AgentSkillV1, { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  skills: AgentSkillV1[];

  @IsOmittable()
  @IsMediaTypeList()
  defaultInputModes: string[] = ['text/plain'];

  @IsOmittable()
  @IsMediaTypeList()
  defaultOutputModes: string[] = ['text/plain'];

  /** Who controls this agent; only the same owner may update or deregister it. */
  @IsText(200)
  owner: string;

  @IsNested(() => AgentEndpointV1)
  endpoint: AgentEndpointV1;

  /** The agent's own version (semver recommended). */
  @IsAgentVersion()
  version: string = '1.0.0';

  @IsOptional()
  @IsNested(() => AgentProviderV1)
  provider?: AgentProviderV1;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  documentationUrl?: string;

  /** Free-form key/values for the agent's own use (kept, not interpreted). */
  @IsOmittable()
  @IsObject()
  metadata: Record<string, unknown> = {};
}

/** 1-40 characters of letters, digits, ".", "+" or "-" (semver fits). */
export function IsAgentVersion(): PropertyDecorator {
  return (target, key) => {
    IsString()(target, key);
    Matches(/^[0-9A-Za-z.+-]{1,40}$/, {
      message: 'version must be 1-40 characters of letters, digits, ".", "+" or "-"',
    })(target, key);
  };
}

/** A list of media types (`text/plain`, ...). */
export function IsMediaTypeList(): PropertyDecorator {
  return (target, key) => {
    IsArray()(target, key);
    ArrayMaxSize(20)(target, key);
    MaxLength(100, { each: true })(target, key);
    Matches(MODE_PATTERN, { each: true, message: '$property must contain media types like "text/plain"' })(target, key);
  };
}

/**
 * May be left out (the default applies, or the value is kept), but `null` is not a value: unlike `@IsOptional()`,
 * which skips validation for `null` too and would let a `null` reach a NOT NULL column.
 */
export function IsOmittable(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/** The card as the registry stores and returns it. @since 1 */
export class AgentCardV1 extends AgentDescriptionV1 {
  @IsUUID()
  id: string;

  @IsIn(AGENT_STATUSES)
  status: AgentStatus;

  /** Increases by one on every change of the card (not on heartbeats); consumers use it to drop stale events. */
  @IsInt()
  revision: number;

  @IsDateString()
  registeredAt: string;

  @IsDateString()
  updatedAt: string;

  @IsDateString()
  lastSeenAt: string;
}
