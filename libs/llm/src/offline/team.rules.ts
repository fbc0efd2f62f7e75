import type {
  TeamPickInput,
  TeamPickMember,
  TeamPickOutput,
  TeamQueriesInput,
  TeamQueriesOutput,
} from '../purposes/team.purpose.js';
import { bestSkill } from './profiles.js';
import { splitClauses, truncate } from './text.js';

/** `team.queries`: one query per clause of the goal; code is replaced by the words "JavaScript code". */
export function teamQueries(input: TeamQueriesInput): TeamQueriesOutput {
  const clauses = splitClauses(input.goal);
  const queries = (clauses.length > 0 ? clauses : [input.goal]).map((clause) =>
    truncate(
      clause
        .replace(/```[\s\S]*?```|`[^`\n]+`/g, 'JavaScript code')
        .replace(/\s+/g, ' ')
        .trim(),
      1000,
    ),
  );
  return { queries: [...new Set(queries)].slice(0, input.maxQueries ?? 6) };
}

/**
 * `team.pick`: for each query in order, the best-scoring candidate found by that query with a score of at least
 * `minScore` and not already picked; at most `maxMembers`. The reason names the candidate's skill that shares
 * most words with the query. Nobody above the threshold → no members.
 */
export function teamPick(input: TeamPickInput): TeamPickOutput {
  const minScore = input.minScore ?? 0.1;
  const maxMembers = input.maxMembers ?? 4;
  const members: TeamPickMember[] = [];
  const picked = new Set<string>();
  for (const query of input.queries) {
    if (members.length >= maxMembers) break;
    const best = input.candidates
      .filter(
        (candidate) =>
          candidate.matchedQuery === query && candidate.score >= minScore && !picked.has(candidate.agentId),
      )
      .sort((left, right) => right.score - left.score || left.name.localeCompare(right.name))[0];
    if (!best) continue;
    picked.add(best.agentId);
    const skill = bestSkill(query, best.skills);
    members.push({
      agentId: best.agentId,
      reason: truncate(
        `${skill ? `Skill "${skill.name}"` : 'Its card'} matches "${query}" (score ${best.score.toFixed(2)})`,
        1000,
      ),
    });
  }
  return {
    members,
    rationale:
      members.length > 0
        ? `Best candidate per query, at least ${minScore} similar`
        : `No candidate is at least ${minScore} similar to any query`,
  };
}
