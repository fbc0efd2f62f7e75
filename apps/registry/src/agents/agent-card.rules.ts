import { ContractError, type AgentSkillV1, type UpdateAgentV1Request } from '@ioa/contracts';
import type { AgentCardFields } from './agent-card.mapper.js';

/**
 * JSON with object keys sorted, so two values compare equal whatever their key order (jsonb reorders keys).
 * `undefined` members are dropped, as JSON.stringify and jsonb do.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (member === null || typeof member !== 'object' || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(member).sort()) sorted[key] = (member as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * Whether two cards say the same thing. A re-registration with an unchanged card is only a heartbeat: it does not
 * bump the revision or publish `updated`, so an agent restarting a thousand times does not make discovery
 * re-embed it a thousand times.
 */
export function isSameCard(current: AgentCardFields, next: AgentCardFields): boolean {
  return canonicalJson(current) === canonicalJson(next);
}

/** Skill ids are unique within an agent (A2A addresses skills by id). */
export function assertUniqueSkillIds(skills: AgentSkillV1[]): void {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { id } of skills) (seen.has(id) ? duplicates : seen).add(id);
  if (duplicates.size > 0) {
    const list = [...duplicates];
    throw new ContractError(
      'VALIDATION_FAILED',
      `Invalid payload: skill ids must be unique within an agent; repeated: ${list.join(', ')}`,
      [{ property: 'skills', constraints: [`skill ids must be unique (repeated: ${list.join(', ')})`] }],
    );
  }
}

/** The card after a partial update: absent fields keep their value, `null` clears the optional ones. */
export function applyUpdate(current: AgentCardFields, update: UpdateAgentV1Request): AgentCardFields {
  const next: AgentCardFields = {
    ...current,
    description: update.description ?? current.description,
    skills: update.skills ?? current.skills,
    defaultInputModes: update.defaultInputModes ?? current.defaultInputModes,
    defaultOutputModes: update.defaultOutputModes ?? current.defaultOutputModes,
    endpoint: update.endpoint ?? current.endpoint,
    version: update.version ?? current.version,
    metadata: update.metadata ?? current.metadata,
  };
  if (update.provider !== undefined) {
    if (update.provider === null) delete next.provider;
    else next.provider = update.provider;
  }
  if (update.documentationUrl !== undefined) {
    if (update.documentationUrl === null) delete next.documentationUrl;
    else next.documentationUrl = update.documentationUrl;
  }
  return next;
}
