import { ArrayMaxSize, IsArray, IsInt, IsNumber, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { IsNested, IsText } from '@ioa/contracts';
import { definePurpose } from '../language-model.js';
import { SkillProfile } from './profiles.js';

// ---------------------------------------------------------------------------------------------------------------
// team.queries: the goal → capability queries for discovery

export class TeamQueriesInput {
  @IsText(8000)
  goal: string;

  /** At most this many queries (discovery accepts up to 10). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  maxQueries: number = 6;
}

export class TeamQueriesOutput {
  /** Short descriptions of capabilities the goal needs, one per needed skill. */
  @IsArray()
  @ArrayMaxSize(10)
  @IsText(1000, { each: true })
  queries: string[];
}

export const TeamQueriesPurpose = definePurpose({
  purpose: 'team.queries',
  inputType: TeamQueriesInput,
  outputType: TeamQueriesOutput,
  instructions:
    'You form a team of agents for a goal. Write short capability queries (one per distinct skill the goal needs, ' +
    'at most `maxQueries`), each a plain sentence describing what an agent must be able to do. They are embedded ' +
    'and searched against agent cards.',
});

// ---------------------------------------------------------------------------------------------------------------
// team.pick: discovery candidates → 1–4 members with reasons

/** One discovery match: a candidate agent, the query that found it and its similarity score. */
export class TeamCandidate {
  @IsUUID()
  agentId: string;

  @IsString()
  name: string;

  @IsOptional()
  @IsString()
  description?: string;

  @IsNested(() => SkillProfile, { each: true })
  skills: SkillProfile[] = [];

  /** Cosine similarity in [-1, 1] for `matchedQuery`. */
  @IsNumber()
  score: number;

  @IsString()
  matchedQuery: string;
}

export class TeamPickInput {
  @IsText(8000)
  goal: string;

  /** The queries, in the order their needs appear in the goal. */
  @IsArray()
  @IsString({ each: true })
  queries: string[];

  /** Candidates may repeat an agent under different queries (e.g. one search per query). */
  @IsNested(() => TeamCandidate, { each: true })
  candidates: TeamCandidate[];

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8)
  maxMembers: number = 4;

  /** Candidates scoring below this are not suitable. */
  @IsOptional()
  @IsNumber()
  minScore: number = 0.1;
}

export class TeamPickMember {
  /** Must be one of the candidates' ids. */
  @IsUUID()
  agentId: string;

  @IsText(1000)
  reason: string;
}

export class TeamPickOutput {
  /** In the order they should be listed; the first one leads. Empty when no candidate is suitable. */
  @IsNested(() => TeamPickMember, { each: true })
  @ArrayMaxSize(8)
  members: TeamPickMember[];

  /** Why the team looks like this (or why nobody was suitable). */
  @IsOptional()
  @IsString()
  rationale?: string;
}

export const TeamPickPurpose = definePurpose({
  purpose: 'team.pick',
  inputType: TeamPickInput,
  outputType: TeamPickOutput,
  instructions:
    'Pick the team for the goal from the candidates only (never invent an agent): at most `maxMembers`, no two ' +
    'members with overlapping skills, each with a one-sentence reason naming the skill that makes it useful. ' +
    'Ignore candidates scoring below `minScore`. The first member leads. Return no members if nobody fits.',
});
