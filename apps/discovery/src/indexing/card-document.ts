import pgvector from 'pgvector';
import type { AgentDescriptionV1 } from '@ioa/contracts';

type CardText = Pick<AgentDescriptionV1, 'name' | 'description' | 'skills'>;

/**
 * The text discovery embeds for an agent: what it is called, what it says it does, and for each skill its name,
 * description, tags and example prompts. Owner, endpoint and metadata are left out on purpose: they say how to
 * reach an agent, not what it can do, and would only blur the match.
 */
export function cardDocument(card: CardText): string {
  const lines = [`${card.name.replace(/[-_]+/g, ' ')}.`, card.description];
  for (const skill of card.skills) {
    lines.push(`${skill.name}.`, skill.description);
    if (skill.tags.length > 0) lines.push(`${skill.tags.join(', ')}.`);
    for (const example of skill.examples) lines.push(example);
  }
  return lines.join('\n');
}

/** Skill tags as the filter compares them: lowercase, unique. */
export function skillTags(card: Pick<AgentDescriptionV1, 'skills'>): string[] {
  return [...new Set(card.skills.flatMap((skill) => skill.tags.map((tag) => tag.toLowerCase())))];
}

/**
 * pgvector's text form of a vector (written by the `pgvector` package), rounded to seven significant digits first:
 * float4 holds no more, and it halves the payload.
 */
export function toVectorLiteral(vector: number[]): string {
  return pgvector.toSql(vector.map((value) => Number(value.toPrecision(7)))) as string;
}
