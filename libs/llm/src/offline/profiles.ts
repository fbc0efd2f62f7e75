import type { AgentProfile, SkillProfile } from '../purposes/profiles.js';
import { keywords, overlap } from './text.js';

/** Skill tags that make an agent "a writer" for the offline rules (the built-in writer carries `report`). */
export const WRITER_TAGS = ['writing', 'report', 'reports', 'writer'];

export function isWriter(agent: AgentProfile): boolean {
  return agent.skills.some((skill) => skill.tags.some((tag) => WRITER_TAGS.includes(tag.toLowerCase())));
}

function skillText(skill: SkillProfile): string {
  return `${skill.name} ${skill.description} ${skill.tags.join(' ')}`;
}

/** Keywords of what an agent can do: its skills' names, descriptions and tags. */
export function agentKeywords(agent: AgentProfile): Set<string> {
  return keywords(agent.skills.map(skillText).join(' '));
}

/** The skill of `skills` that shares the most keywords with `text` (the first one on a tie), if any. */
export function bestSkill(text: string, skills: SkillProfile[]): SkillProfile | undefined {
  const wanted = keywords(text);
  let best: SkillProfile | undefined;
  let bestScore = -1;
  for (const skill of skills) {
    const score = overlap(wanted, keywords(skillText(skill)));
    if (score > bestScore) {
      best = skill;
      bestScore = score;
    }
  }
  return best;
}

/** The member whose skills share the most keywords with `text` (at least one); the first one on a tie. */
export function bestMember(text: string, members: AgentProfile[]): AgentProfile | undefined {
  const wanted = keywords(text);
  let best: AgentProfile | undefined;
  let bestScore = 0;
  for (const member of members) {
    const score = overlap(wanted, agentKeywords(member));
    if (score > bestScore) {
      best = member;
      bestScore = score;
    }
  }
  return best;
}
