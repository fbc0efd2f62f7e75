import type { AgentCardV1, AgentDescriptionV1, AgentEndpointV1, AgentProviderV1, AgentSkillV1 } from '@ioa/contracts';
import type { AgentEntity } from './agent.entity.js';

/**
 * The part of a card its owner describes (everything but identity, owner, presence and bookkeeping), as plain
 * objects with a fixed shape: what registration and update write, and what "did the card change?" compares.
 */
export type AgentCardFields = Omit<AgentDescriptionV1, 'owner' | 'provider' | 'documentationUrl'> & {
  provider?: AgentProviderV1;
  documentationUrl?: string;
};

/** What `cardFieldsOf` accepts: a validated request or a stored entity (`null` = absent). */
export type AgentCardFieldsSource = Omit<AgentCardFields, 'provider' | 'documentationUrl'> & {
  provider?: AgentProviderV1 | null;
  documentationUrl?: string | null;
};

function skill(source: AgentSkillV1): AgentSkillV1 {
  return {
    id: source.id,
    name: source.name,
    description: source.description,
    tags: [...source.tags],
    examples: [...source.examples],
  };
}

function endpoint(source: AgentEndpointV1): AgentEndpointV1 {
  return source.url === undefined || source.url === null
    ? { kind: source.kind }
    : { kind: source.kind, url: source.url };
}

function provider(source: AgentProviderV1): AgentProviderV1 {
  return source.url === undefined || source.url === null
    ? { organization: source.organization }
    : { organization: source.organization, url: source.url };
}

/** Copies exactly the card fields, so nothing unplanned (class instances, stray jsonb keys) is stored or sent. */
export function cardFieldsOf(source: AgentCardFieldsSource): AgentCardFields {
  const fields: AgentCardFields = {
    name: source.name,
    description: source.description,
    skills: source.skills.map(skill),
    defaultInputModes: [...source.defaultInputModes],
    defaultOutputModes: [...source.defaultOutputModes],
    endpoint: endpoint(source.endpoint),
    version: source.version,
    metadata: source.metadata,
  };
  if (source.provider) fields.provider = provider(source.provider);
  if (source.documentationUrl) fields.documentationUrl = source.documentationUrl;
  return fields;
}

/** Column values of an entity for the given card fields. */
export function entityColumnsOf(
  fields: AgentCardFields,
): Omit<AgentEntity, 'id' | 'owner' | 'status' | 'revision' | 'registeredAt' | 'updatedAt' | 'lastSeenAt'> {
  return {
    ...fields,
    provider: fields.provider ?? null,
    documentationUrl: fields.documentationUrl ?? null,
  };
}

/** Entity → wire. The only way an agent leaves the registry. */
export function toAgentCard(agent: AgentEntity): AgentCardV1 {
  const fields = cardFieldsOf(agent);
  return {
    id: agent.id,
    ...fields,
    owner: agent.owner,
    status: agent.status,
    revision: agent.revision,
    registeredAt: agent.registeredAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
    lastSeenAt: agent.lastSeenAt.toISOString(),
  };
}
