import type { AgentCard } from '@a2a-js/sdk';
import { slugOf, type AgentSkillV1 } from '@ioa/contracts';
import type { EndpointProfile } from '../tasks/endpoint-runner.js';

const MAX_SKILLS = 50;

/** An A2A agent card, mapped onto ours: the fields already mirror each other, names become slugs. */
export function profileFromA2aCard(card: AgentCard): EndpointProfile {
  const seen = new Set<string>();
  const skills: AgentSkillV1[] = [];
  for (const [index, skill] of card.skills.entries()) {
    let id = slugOf(skill.id || skill.name, `skill-${index + 1}`);
    while (seen.has(id)) id = `${id.slice(0, 58)}-${index + 1}`;
    seen.add(id);
    skills.push({
      id,
      name: (skill.name || skill.id).slice(0, 120),
      description: (skill.description || skill.name || card.description).slice(0, 2000),
      tags: skill.tags
        .filter((tag) => tag.trim())
        .slice(0, 20)
        .map((tag) => tag.slice(0, 40)),
      examples: skill.examples
        .filter((example) => example.trim())
        .slice(0, 10)
        .map((example) => example.slice(0, 500)),
    });
    if (skills.length === MAX_SKILLS) break;
  }
  // A card without skills still says what the agent does; one skill made from its description keeps it findable.
  if (skills.length === 0) {
    skills.push({
      id: 'default',
      name: card.name.slice(0, 120),
      description: card.description,
      tags: [],
      examples: [],
    });
  }
  const version = /^[0-9A-Za-z.+-]{1,40}$/.test(card.version) ? card.version : undefined;
  return {
    name: slugOf(card.name, 'a2a-agent'),
    description: card.description.slice(0, 4000) || card.name,
    skills,
    version,
    provider: card.provider?.organization
      ? { organization: card.provider.organization, url: card.provider.url || undefined }
      : undefined,
    documentationUrl: card.documentationUrl || undefined,
    metadata: { a2a: { streaming: card.capabilities?.streaming === true } },
  };
}
