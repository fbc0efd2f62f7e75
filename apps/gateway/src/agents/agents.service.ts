import { Injectable } from '@nestjs/common';
import {
  ContractError,
  DeregisterAdaptedAgentV1,
  GetAgentV1,
  RegisterAdaptedAgentV1,
  UpdateAdaptedAgentV1,
  type AdaptedAgentV1,
  type DeregisterAdaptedAgentV1Response,
  type RegisterAdaptedAgentV1Request,
  ListAgentsV1,
  ListAgentsV1Request,
  SearchAgentsV1,
  SearchAgentsV1Request,
  type AgentCardV1,
} from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import type { ListAgentsQueryDto } from './dto/list-agents.query.js';
import type { AgentListResponseDto } from './dto/agent-list.response.js';
import type { DeregisterAgentRequestDto, UpdateAgentRequestDto } from './dto/adapted-agent.requests.js';

/** Fills a contract request class (so its declared defaults apply) with the fields the caller actually set. */
function contractRequest<T extends object>(type: new () => T, fields: Partial<T>): T {
  const defined = Object.entries(fields).filter(([, value]) => value !== undefined);
  return Object.assign(new type(), Object.fromEntries(defined));
}

/**
 * An agent registered over REST belongs to the caller's account: `owner` is the account id. A member may register,
 * change or remove only its own account's agents (the adapters service then checks `owner` against the agent's);
 * an admin may name any owner, to act for any account.
 */
function checkOwner(owner: string, trace: RequestOptions): void {
  const principal = trace.principal;
  if (!principal || principal.role === 'admin' || owner === principal.accountId) return;
  throw new ContractError('FORBIDDEN', `owner must be your account (${principal.accountId})`, {
    owner,
    accountId: principal.accountId,
  });
}

/** Agents over HTTP: the registry answers listings and lookups, discovery answers searches. */
@Injectable()
export class AgentsService {
  constructor(private readonly client: ContractClient) {}

  list(query: ListAgentsQueryDto, trace: RequestOptions = {}): Promise<AgentListResponseDto> {
    return query.q === undefined ? this.listRegistered(query, trace) : this.search(query.q, query, trace);
  }

  get(id: string, trace: RequestOptions = {}): Promise<AgentCardV1> {
    return this.client.request(GetAgentV1, { id }, trace);
  }

  /** Agents reached over A2A, MCP, an OpenAI-compatible endpoint or a webhook join through the adapters service. */
  register(body: RegisterAdaptedAgentV1Request, trace: RequestOptions = {}): Promise<AdaptedAgentV1> {
    checkOwner(body.owner, trace);
    return this.client.request(RegisterAdaptedAgentV1, body, trace);
  }

  update(id: string, body: UpdateAgentRequestDto, trace: RequestOptions = {}): Promise<AdaptedAgentV1> {
    checkOwner(body.owner, trace);
    return this.client.request(UpdateAdaptedAgentV1, { ...body, id }, trace);
  }

  deregister(
    id: string,
    body: DeregisterAgentRequestDto,
    trace: RequestOptions = {},
  ): Promise<DeregisterAdaptedAgentV1Response> {
    checkOwner(body.owner, trace);
    return this.client.request(DeregisterAdaptedAgentV1, { ...body, id }, trace);
  }

  private async listRegistered(query: ListAgentsQueryDto, trace: RequestOptions): Promise<AgentListResponseDto> {
    const request = contractRequest(ListAgentsV1Request, {
      status: query.online === undefined ? undefined : query.online ? 'online' : 'offline',
      limit: query.limit,
      offset: query.offset,
    });
    const page = await this.client.request(ListAgentsV1, request, trace);
    return { items: page.items, total: page.total, limit: request.limit, offset: request.offset };
  }

  private async search(q: string, query: ListAgentsQueryDto, trace: RequestOptions): Promise<AgentListResponseDto> {
    const request = contractRequest(SearchAgentsV1Request, {
      queries: [q],
      topK: query.topK,
      minScore: query.minScore,
      // Absent means discovery's default (online only): a search usually looks for someone to work with now.
      onlineOnly: query.online,
      tags: query.tags?.length ? query.tags : undefined,
    });
    const result = await this.client.request(SearchAgentsV1, request, trace);
    const items = result.matches.map((match) => ({
      ...match.agent,
      score: match.score,
      matchedQuery: match.matchedQuery,
    }));
    return { items, total: items.length, model: result.model };
  }
}
