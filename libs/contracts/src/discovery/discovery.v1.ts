import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
} from 'class-validator';
import { eventContract, requestContract } from '../common/contract.js';
import { IsIntegerIn, IsNested, IsNumberIn, IsText } from '../common/validation.js';
import { AgentCardV1 } from '../registry/agent-card.v1.js';

// ---------------------------------------------------------------------------------------------------------------
// search

/**
 * Semantic search for agents by what they can do. Several queries are searched separately, then merged: an agent
 * found by more than one query appears once, with its best score.
 * @since 1
 */
export class SearchAgentsV1Request {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @IsText(1000, { each: true })
  queries: string[];

  @IsOptional()
  @IsIntegerIn(1, 100)
  topK: number = 10;

  /** Cosine similarity in [-1, 1] below which a match is dropped. */
  @IsOptional()
  @IsNumberIn(-1, 1)
  minScore: number = 0;

  @IsOptional()
  @IsBoolean()
  onlineOnly: boolean = true;

  /** Keep only agents having at least one skill tagged with one of these tags. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsText(40, { each: true })
  tags?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsUUID('all', { each: true })
  excludeIds?: string[];
}

/** @since 1 */
export class AgentMatchV1 {
  @IsNested(() => AgentCardV1)
  agent: AgentCardV1;

  /** Cosine similarity between the best-matching query and the agent's card, in [-1, 1]. */
  @IsNumber()
  score: number;

  /** The query that gave the best score. */
  @IsString()
  matchedQuery: string;
}

/** @since 1 */
export class SearchAgentsV1Response {
  @IsNested(() => AgentMatchV1, { each: true })
  matches: AgentMatchV1[];

  /** The embedding model that produced the scores. */
  @IsString()
  model: string;
}

export const SearchAgentsV1 = requestContract<SearchAgentsV1Request, SearchAgentsV1Response>({
  subject: 'ioa.discovery.agent.search.v1',
  owner: 'discovery',
  request: SearchAgentsV1Request,
  response: SearchAgentsV1Response,
  summary: 'Rank agents by semantic similarity of their cards to one or several natural-language queries.',
  since: '1',
});

// ---------------------------------------------------------------------------------------------------------------
// indexed (event)

/**
 * Discovery has (re-)embedded an agent's card: from now on searches see this revision. Useful to wait on after
 * registering, since indexing follows registration asynchronously.
 * @since 1
 */
export class AgentIndexedV1Event {
  @IsUUID()
  agentId: string;

  @IsInt()
  revision: number;

  @IsString()
  model: string;

  /** False when the agent was removed from the index (deregistered). */
  @IsBoolean()
  indexed: boolean;
}

export const AgentIndexedV1 = eventContract<AgentIndexedV1Event>({
  subject: 'ioa.discovery.agent.indexed.v1',
  owner: 'discovery',
  payload: AgentIndexedV1Event,
  summary: "An agent card's embedding was stored (or removed) and searches now reflect it.",
  since: '1',
});
