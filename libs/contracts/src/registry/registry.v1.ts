import {
  ArrayMaxSize,
  ArrayMinSize,
  IsObject,
  IsUrl,
  IsArray,
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  ValidateIf,
} from 'class-validator';
import { eventContract, requestContract } from '../common/contract.js';
import { IsIntegerIn, IsNested, IsSlug, IsText } from '../common/validation.js';
import { Nullable } from '../common/payload-bounds.js';
import {
  AGENT_STATUSES,
  AgentCardV1,
  AgentDescriptionV1,
  AgentEndpointV1,
  AgentProviderV1,
  AgentSkillV1,
  IsAgentVersion,
  IsMediaTypeList,
  IsOmittable,
  type AgentStatus,
} from './agent-card.v1.js';

/** JetStream stream that keeps registry events, so discovery and other consumers never miss a change. */
export const REGISTRY_EVENTS_STREAM = 'IOA_REGISTRY_EVENTS';

// ---------------------------------------------------------------------------------------------------------------
// register

/**
 * Register an agent. Registering again with the same name and the same owner updates the card (and counts as a
 * heartbeat); the same name under a different owner is a `CONFLICT`.
 * @since 1
 */
export class RegisterAgentV1Request extends AgentDescriptionV1 {}

/** @since 1 */
export class RegisterAgentV1Response {
  @IsNested(() => AgentCardV1)
  agent: AgentCardV1;

  /** False when an existing card of the same name and owner was updated. */
  @IsBoolean()
  created: boolean;

  /** Seconds of silence after which the agent is marked offline: heartbeat well within this. */
  @IsInt()
  heartbeatTtlSeconds: number;
}

export const RegisterAgentV1 = requestContract<RegisterAgentV1Request, RegisterAgentV1Response>({
  subject: 'ioa.registry.agent.register.v1',
  owner: 'registry',
  request: RegisterAgentV1Request,
  response: RegisterAgentV1Response,
  summary: 'Register an agent card, or update it when the same owner registers the same name again.',
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// update

/**
 * Partial update of a card; absent fields keep their value. The rules are those of registration, so an update can
 * never produce a card that registration would refuse. `null` clears the optional `provider` and
 * `documentationUrl`; the other fields cannot be cleared.
 * @since 1
 */
export class UpdateAgentV1Request {
  @IsUUID()
  id: string;

  /** Must match the card's owner. */
  @IsText(200)
  owner: string;

  @IsOmittable()
  @IsText(4000)
  description?: string;

  @IsOmittable()
  @IsNested(() => AgentSkillV1, { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  skills?: AgentSkillV1[];

  @IsOmittable()
  @IsMediaTypeList()
  defaultInputModes?: string[];

  @IsOmittable()
  @IsMediaTypeList()
  defaultOutputModes?: string[];

  @IsOmittable()
  @IsNested(() => AgentEndpointV1)
  endpoint?: AgentEndpointV1;

  @IsOmittable()
  @IsAgentVersion()
  version?: string;

  /** `null` removes the provider from the card. */
  @IsOptional()
  @Nullable()
  @IsNested(() => AgentProviderV1)
  provider?: AgentProviderV1 | null;

  /** `null` removes the documentation link. */
  @IsOptional()
  @Nullable()
  @IsUrl({ require_tld: false, require_protocol: true })
  documentationUrl?: string | null;

  @IsOmittable()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export const UpdateAgentV1 = requestContract<UpdateAgentV1Request, AgentCardV1>({
  subject: 'ioa.registry.agent.update.v1',
  owner: 'registry',
  request: UpdateAgentV1Request,
  response: AgentCardV1,
  summary: "Change fields of an agent's card. Only its owner may.",
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// deregister

/** @since 1 */
export class DeregisterAgentV1Request {
  @IsUUID()
  id: string;

  @IsText(200)
  owner: string;
}

/** @since 1 */
export class DeregisterAgentV1Response {
  @IsUUID()
  id: string;

  @IsBoolean()
  deregistered: boolean;
}

export const DeregisterAgentV1 = requestContract<DeregisterAgentV1Request, DeregisterAgentV1Response>({
  subject: 'ioa.registry.agent.deregister.v1',
  owner: 'registry',
  request: DeregisterAgentV1Request,
  response: DeregisterAgentV1Response,
  summary: 'Remove an agent from the network. Only its owner may.',
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// get / list

/** Look an agent up by id or by name (exactly one of the two). @since 1 */
export class GetAgentV1Request {
  // Validated whenever present (and required when `name` is absent), so `{id, name}` cannot smuggle an invalid id.
  @ValidateIf((request: GetAgentV1Request) => request.id !== undefined || request.name === undefined)
  @IsUUID()
  id?: string;

  @ValidateIf((request: GetAgentV1Request) => request.name !== undefined || request.id === undefined)
  @IsSlug()
  name?: string;
}

export const GetAgentV1 = requestContract<GetAgentV1Request, AgentCardV1>({
  subject: 'ioa.registry.agent.get.v1',
  owner: 'registry',
  request: GetAgentV1Request,
  response: AgentCardV1,
  summary: 'One agent card by id or by name; NOT_FOUND when there is none.',
  since: '1',
});

/** @since 1 */
export class ListAgentsV1Request {
  @IsOptional()
  @IsIn(AGENT_STATUSES)
  status?: AgentStatus;

  /** Only these ids (for resolving a team, for example). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsUUID('all', { each: true })
  ids?: string[];

  @IsOptional()
  @IsText(200)
  owner?: string;

  @IsOptional()
  @IsIntegerIn(1, 500)
  limit?: number = 100;

  @IsOptional()
  @IsIntegerIn(0)
  offset?: number = 0;
}

/** @since 1 */
export class ListAgentsV1Response {
  @IsNested(() => AgentCardV1, { each: true })
  items: AgentCardV1[];

  /** Number of agents matching the filter, across all pages. */
  @IsInt()
  total: number;
}

export const ListAgentsV1 = requestContract<ListAgentsV1Request, ListAgentsV1Response>({
  subject: 'ioa.registry.agent.list.v1',
  owner: 'registry',
  request: ListAgentsV1Request,
  response: ListAgentsV1Response,
  summary: 'Agent cards, newest registration first, filtered by status, ids or owner; paged.',
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// heartbeat

/** @since 1 */
export class HeartbeatAgentV1Request {
  @IsUUID()
  id: string;
}

/** @since 1 */
export class HeartbeatAgentV1Response {
  @IsIn(AGENT_STATUSES)
  status: AgentStatus;

  @IsInt()
  heartbeatTtlSeconds: number;
}

export const HeartbeatAgentV1 = requestContract<HeartbeatAgentV1Request, HeartbeatAgentV1Response>({
  subject: 'ioa.registry.agent.heartbeat.v1',
  owner: 'registry',
  request: HeartbeatAgentV1Request,
  response: HeartbeatAgentV1Response,
  summary: 'An agent says it is alive. NOT_FOUND means it must register (again).',
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// events (facts, past tense; stored in JetStream)

/** Carries the whole card, so consumers can keep a projection without calling back. @since 1 */
export class AgentChangedV1Event {
  @IsNested(() => AgentCardV1)
  agent: AgentCardV1;
}

export const AgentRegisteredV1 = eventContract<AgentChangedV1Event>({
  subject: 'ioa.registry.agent.registered.v1',
  owner: 'registry',
  payload: AgentChangedV1Event,
  summary: 'A new agent card was stored.',
  since: '1',
  stream: REGISTRY_EVENTS_STREAM,
});

export const AgentUpdatedV1 = eventContract<AgentChangedV1Event>({
  subject: 'ioa.registry.agent.updated.v1',
  owner: 'registry',
  payload: AgentChangedV1Event,
  summary: "An agent's card changed (fields, not presence).",
  since: '1',
  stream: REGISTRY_EVENTS_STREAM,
});

/** @since 1 */
export class AgentDeregisteredV1Event {
  @IsUUID()
  agentId: string;

  @IsString()
  name: string;

  @IsInt()
  revision: number;
}

export const AgentDeregisteredV1 = eventContract<AgentDeregisteredV1Event>({
  subject: 'ioa.registry.agent.deregistered.v1',
  owner: 'registry',
  payload: AgentDeregisteredV1Event,
  summary: 'An agent left the network.',
  since: '1',
  stream: REGISTRY_EVENTS_STREAM,
});

/** @since 1 */
export class AgentPresenceChangedV1Event {
  @IsUUID()
  agentId: string;

  @IsString()
  name: string;

  @IsIn(AGENT_STATUSES)
  status: AgentStatus;

  @IsDateString()
  lastSeenAt: string;
}

export const AgentWentOfflineV1 = eventContract<AgentPresenceChangedV1Event>({
  subject: 'ioa.registry.agent.went-offline.v1',
  owner: 'registry',
  payload: AgentPresenceChangedV1Event,
  summary: 'An agent was silent for longer than the heartbeat TTL.',
  since: '1',
  stream: REGISTRY_EVENTS_STREAM,
});

export const AgentCameOnlineV1 = eventContract<AgentPresenceChangedV1Event>({
  subject: 'ioa.registry.agent.came-online.v1',
  owner: 'registry',
  payload: AgentPresenceChangedV1Event,
  summary: 'An offline agent heartbeated or registered again.',
  since: '1',
  stream: REGISTRY_EVENTS_STREAM,
});
