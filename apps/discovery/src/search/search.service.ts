import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import {
  ContractError,
  type AgentMatchV1,
  type SearchAgentsV1Request,
  type SearchAgentsV1Response,
} from '@ioa/contracts';
import { discoveryConfig } from '../discovery.config.js';
import { EMBEDDER, type Embedder } from '@ioa/embeddings';
import { AgentSearchRepository } from './agent-search.repository.js';

/**
 * Semantic search: each query is embedded and searched on its own (a query per capability finds agents a single
 * blended query would miss), then the lists are merged; an agent found by several queries keeps its best score.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly repository: AgentSearchRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(discoveryConfig.KEY) private readonly config: ConfigType<typeof discoveryConfig>,
  ) {}

  async search(request: SearchAgentsV1Request): Promise<SearchAgentsV1Response> {
    const queries = [...new Set(request.queries.map((query) => query.trim()).filter((query) => query.length > 0))];
    if (queries.length === 0) {
      throw new ContractError('VALIDATION_FAILED', 'At least one query must contain text', [
        { property: 'queries', constraints: ['queries must not be blank'] },
      ]);
    }
    const vectors = await this.embedQueries(queries);
    const perQuery = await this.repository.searchMany(vectors, {
      model: this.embedder.model,
      dimension: this.embedder.dimension,
      limit: request.topK,
      onlineOnly: request.onlineOnly,
      tags: request.tags?.map((tag) => tag.toLowerCase()),
      excludeIds: request.excludeIds,
      // ef_search must be at least the number of rows wanted; twice that keeps recall high for large topK.
      efSearch: Math.max(this.config.hnsw.efSearch, 2 * request.topK),
    });
    const best = new Map<string, AgentMatchV1>();
    perQuery.forEach((hits, i) => {
      for (const hit of hits) {
        if (hit.score < request.minScore) continue;
        const known = best.get(hit.agentId);
        if (!known || hit.score > known.score) {
          best.set(hit.agentId, { agent: hit.card, score: hit.score, matchedQuery: queries[i] });
        }
      }
    });
    const matches = [...best.values()]
      .sort((a, b) => b.score - a.score || a.agent.name.localeCompare(b.agent.name))
      .slice(0, request.topK);
    return { matches, model: this.embedder.model };
  }

  private async embedQueries(queries: string[]): Promise<number[][]> {
    try {
      return await this.embedder.embed(queries);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ContractError('UNAVAILABLE', `The embedding model ${this.embedder.model} failed: ${reason}`, {
        model: this.embedder.model,
      });
    }
  }
}
