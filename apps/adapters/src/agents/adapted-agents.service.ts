import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import {
  ContractError,
  DeregisterAgentV1,
  GetAgentV1,
  RegisterAgentV1,
  UpdateAgentV1,
  type AdaptedAgentV1,
  type AdaptedEndpointV1,
  type AgentCardV1,
  type DeregisterAdaptedAgentV1Request,
  type DeregisterAdaptedAgentV1Response,
  type GetAdaptedAgentV1Request,
  type RegisterAdaptedAgentV1Request,
  type UpdateAdaptedAgentV1Request,
} from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { WebhookCallbackServer } from '../http/webhook-callback.server.js';
import { AgentTargets } from '../secrets/agent-targets.js';
import { AdaptedTasksService } from '../tasks/adapted-tasks.service.js';
import type { EndpointProfile, EndpointTarget } from '../tasks/endpoint-runner.js';
import { EndpointRunners } from '../tasks/endpoint-runners.js';
import { describeError } from '../tasks/outbound-call.js';
import { AdaptedAgentEntity, type EndpointSettings } from './adapted-agent.entity.js';
import { ReachabilityBook } from './reachability.js';

/** What each endpoint kind needs beyond a URL; checked before anything is called. */
export function endpointProblems(endpoint: AdaptedEndpointV1): string[] {
  const problems: string[] = [];
  if (endpoint.kind === 'openai' && !endpoint.model) problems.push('endpoint.model is required for openai endpoints');
  if (endpoint.kind === 'http' && !endpoint.secret) {
    problems.push('endpoint.secret is required for http endpoints (it signs deliveries and callbacks)');
  }
  if (endpoint.kind !== 'openai' && (endpoint.model || endpoint.systemPrompt)) {
    problems.push('endpoint.model and systemPrompt only apply to openai endpoints');
  }
  if (endpoint.kind === 'http' && endpoint.apiKey) {
    problems.push('endpoint.apiKey does not apply to http endpoints (they are signed with endpoint.secret)');
  }
  if (endpoint.kind !== 'http' && endpoint.secret) problems.push('endpoint.secret only applies to http endpoints');
  return problems;
}

function targetFrom(endpoint: AdaptedEndpointV1): EndpointTarget {
  const settings: EndpointSettings = {};
  if (endpoint.model) settings.model = endpoint.model;
  if (endpoint.systemPrompt) settings.systemPrompt = endpoint.systemPrompt;
  if (endpoint.timeoutMs) settings.timeoutMs = endpoint.timeoutMs;
  return {
    kind: endpoint.kind,
    url: endpoint.url,
    settings,
    secret: endpoint.apiKey ?? endpoint.secret ?? null,
  };
}

/**
 * Registration of adapted agents: read what the endpoint says about itself (an A2A card, MCP tools), make sure it
 * answers, write the card to the registry (the registry owns names, owners and revisions), keep the endpoint and
 * its secret here, and start serving the agent's tasks.
 */
@Injectable()
export class AdaptedAgentsService {
  private readonly logger = new Logger(AdaptedAgentsService.name);

  constructor(
    @InjectRepository(AdaptedAgentEntity) private readonly agents: Repository<AdaptedAgentEntity>,
    private readonly runners: EndpointRunners,
    private readonly client: ContractClient,
    private readonly reachability: ReachabilityBook,
    private readonly tasks: AdaptedTasksService,
    private readonly callbacks: WebhookCallbackServer,
    private readonly targets: AgentTargets,
  ) {}

  async register(request: RegisterAdaptedAgentV1Request): Promise<AdaptedAgentV1> {
    const target = this.checkedTarget(request.endpoint);
    const profile = await this.readEndpoint(target);
    const name = request.name ?? profile.name;
    const description = request.description ?? profile.description;
    const skills = request.skills ?? profile.skills;
    const missing = [!name && 'name', !description && 'description', !skills && 'skills'].filter(Boolean);
    if (missing.length > 0) {
      throw new ContractError(
        'VALIDATION_FAILED',
        `The ${target.kind} endpoint does not describe itself: give ${missing.join(', ')} in the registration`,
        missing.map((field) => ({ field, problem: 'required for this endpoint kind' })),
      );
    }
    const { agent } = await this.client.request(RegisterAgentV1, {
      name: name!,
      description: description!,
      skills: skills!,
      owner: request.owner,
      endpoint: { kind: target.kind, url: target.url },
      version: request.version ?? profile.version ?? '1.0.0',
      provider: profile.provider,
      documentationUrl: profile.documentationUrl,
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      metadata: { ...profile.metadata, ...request.metadata },
    });
    const row = await this.save(agent, target);
    this.logger.log(`${agent.name} (${target.kind} at ${target.url}) registered as ${agent.id}`);
    return this.view(row, agent);
  }

  async update(request: UpdateAdaptedAgentV1Request): Promise<AdaptedAgentV1> {
    const row = await this.owned(request.id, request.owner);
    const target = request.endpoint ? this.checkedTarget(request.endpoint) : undefined;
    const profile = target ? await this.readEndpoint(target) : {};
    const agent = await this.client.request(UpdateAgentV1, {
      id: row.id,
      owner: request.owner,
      description: request.description,
      skills: request.skills ?? (target?.kind === 'mcp' || target?.kind === 'a2a' ? profile.skills : undefined),
      version: request.version,
      metadata: request.metadata,
      endpoint: target ? { kind: target.kind, url: target.url } : undefined,
    });
    const saved = target ? await this.save(agent, target) : row;
    return this.view(saved, agent);
  }

  async deregister(request: DeregisterAdaptedAgentV1Request): Promise<DeregisterAdaptedAgentV1Response> {
    const row = await this.owned(request.id, request.owner);
    try {
      await this.client.request(DeregisterAgentV1, { id: row.id, owner: request.owner });
    } catch (error) {
      // Already gone from the registry: removing it here finishes the job.
      if (!(error instanceof ContractError && error.code === 'NOT_FOUND')) throw error;
    }
    await this.agents.delete({ id: row.id });
    this.tasks.stopServing(row.id);
    this.reachability.forget(row.id);
    return { id: row.id, deregistered: true };
  }

  async get(request: GetAdaptedAgentV1Request): Promise<AdaptedAgentV1> {
    const row = await this.agents.findOneBy({ id: request.id });
    if (!row) throw new ContractError('NOT_FOUND', `No adapted agent has id ${request.id}`, { id: request.id });
    return this.view(row, await this.client.request(GetAgentV1, { id: row.id }));
  }

  private checkedTarget(endpoint: AdaptedEndpointV1): EndpointTarget {
    const problems = endpointProblems(endpoint);
    if (problems.length > 0) {
      throw new ContractError(
        'VALIDATION_FAILED',
        problems.join('; '),
        problems.map((problem) => ({ problem })),
      );
    }
    return targetFrom(endpoint);
  }

  /** The endpoint's self-description, and proof that it answers: an agent is never registered unreachable. */
  private async readEndpoint(target: EndpointTarget): Promise<EndpointProfile> {
    const runner = this.runners.for(target.kind);
    try {
      const profile = await runner.describe(target);
      if (target.kind === 'openai' || target.kind === 'http') await runner.probe(target);
      return profile;
    } catch (error) {
      throw new ContractError(
        'VALIDATION_FAILED',
        `The ${target.kind} endpoint at ${target.url} could not be reached or read: ${describeError(error)}`,
        [{ field: 'endpoint.url', problem: describeError(error) }],
      );
    }
  }

  private async owned(id: string, owner: string): Promise<AdaptedAgentEntity> {
    const row = await this.agents.findOneBy({ id });
    if (!row) throw new ContractError('NOT_FOUND', `No adapted agent has id ${id}`, { id });
    if (row.owner !== owner) throw new ContractError('FORBIDDEN', `Agent ${row.name} belongs to another owner`);
    return row;
  }

  private async save(agent: AgentCardV1, target: EndpointTarget): Promise<AdaptedAgentEntity> {
    const row = this.agents.create({
      id: agent.id,
      name: agent.name,
      owner: agent.owner,
      kind: target.kind,
      url: target.url,
      settings: target.settings,
      secret: this.targets.seal(target.secret),
    });
    await this.agents.save(row);
    // It just answered: reachable, and served from now on (not only from the next presence round).
    this.reachability.markReachable(agent.id);
    this.tasks.serve(agent.id);
    return row;
  }

  private view(row: AdaptedAgentEntity, agent: AgentCardV1): AdaptedAgentV1 {
    const reachability = this.reachability.get(row.id);
    return {
      agent,
      endpoint: {
        kind: row.kind,
        url: row.url,
        model: row.settings.model,
        hasSecret: row.secret !== null,
        reachable: reachability.reachable,
        lastError: reachability.lastError,
        lastProbedAt: reachability.lastProbedAt?.toISOString(),
        callbackUrlTemplate: row.kind === 'http' ? this.callbacks.callbackUrlTemplate(row.id) : undefined,
      },
    };
  }
}
