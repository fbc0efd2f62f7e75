import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { AgentCardV1 } from '@ioa/contracts';

/** OpenAPI name of a list entry: the contract's agent card plus the search score (see `openapi.ts`). */
export const AGENT_LIST_ITEM_SCHEMA = 'AgentListItem';

/** An agent card as the registry returns it; a search adds how well it matched. */
export type AgentListItem = AgentCardV1 & { score?: number; matchedQuery?: string };

export class AgentListResponseDto {
  @ApiProperty({
    type: 'array',
    items: { $ref: getSchemaPath(AGENT_LIST_ITEM_SCHEMA) },
    description: 'Listing: newest registration first. Search: best match first.',
  })
  items: AgentListItem[];

  @ApiProperty({
    type: 'integer',
    description: 'Listing: agents matching the filter across all pages. Search: matches returned.',
  })
  total: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Listing only: the page size used.' })
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Listing only: the offset used.' })
  offset?: number;

  @ApiPropertyOptional({ description: 'Search only: the embedding model that produced the scores.' })
  model?: string;
}
