import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import {
  ContractError,
  type AgentCardV1,
  type DeregisterAgentV1Request,
  type DeregisterAgentV1Response,
  type GetAgentV1Request,
  type HeartbeatAgentV1Request,
  type HeartbeatAgentV1Response,
  type ListAgentsV1Request,
  type ListAgentsV1Response,
  type RegisterAgentV1Request,
  type RegisterAgentV1Response,
  type UpdateAgentV1Request,
} from '@ioa/contracts';
import type { OutboxMessage } from '@ioa/database';
import { registryConfig } from '../registry.config.js';
import { AgentEntity } from './agent.entity.js';
import { cardFieldsOf, entityColumnsOf, toAgentCard, type AgentCardFields } from './agent-card.mapper.js';
import { applyUpdate, assertUniqueSkillIds, isSameCard } from './agent-card.rules.js';
import { agentCameOnline, agentDeregistered, agentRegistered, agentUpdated } from './agent.events.js';
import { AgentsRepository, type AgentsTransaction } from './agents.repository.js';

const DEFAULT_LIST_LIMIT = 100;
/** Registration re-reads after losing an insert race; more than a few rounds means something else is wrong. */
const REGISTER_ATTEMPTS = 3;

/** Registry use cases. Every change commits with its events (outbox), which are published before the reply. */
@Injectable()
export class AgentsService {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(registryConfig.KEY) private readonly config: ConfigType<typeof registryConfig>,
  ) {}

  /**
   * Registers a new agent, or — same name, same owner — updates its card. Either way it counts as a heartbeat.
   * The same name under another owner is a CONFLICT. Naturally idempotent: sending the same card twice leaves one
   * agent with one revision. `ownId` is the id of an agent registering itself (its identity's): the card gets that
   * id, and the same name under another id is a CONFLICT.
   */
  async register(request: RegisterAgentV1Request, ownId?: string): Promise<RegisterAgentV1Response> {
    assertUniqueSkillIds(request.skills);
    const fields = cardFieldsOf(request);
    const { agent, created } = await this.agents.transaction(async (transaction) => {
      for (let attempt = 0; attempt < REGISTER_ATTEMPTS; attempt++) {
        const existing = await transaction.lockByName(request.name);
        if (existing && ownId !== undefined && existing.id !== ownId) {
          throw new ContractError(
            'CONFLICT',
            `Agent name "${existing.name}" is already registered by another agent; choose another name`,
            { name: existing.name },
          );
        }
        // An agent registering under its own id may also have changed its name since.
        const own = existing ?? (ownId === undefined ? null : await transaction.lockById(ownId));
        if (own) {
          return { agent: await this.reRegister(transaction, own, request.owner, fields), created: false };
        }
        await this.checkAgentQuota(transaction, request.owner);
        const now = await transaction.now();
        const fresh = Object.assign(new AgentEntity(), {
          id: ownId ?? randomUUID(),
          ...entityColumnsOf(fields),
          owner: request.owner,
          status: 'online',
          revision: 1,
          registeredAt: now,
          updatedAt: now,
          lastSeenAt: now,
        } satisfies AgentEntity);
        if (await transaction.insertIfNameFree(fresh)) {
          await transaction.enqueue(agentRegistered(fresh));
          return { agent: fresh, created: true };
        }
        // Someone registered this name between our read and our insert: read their row and decide again.
      }
      const message = `Agent name "${request.name}" is being registered concurrently; retry`;
      throw new ContractError('CONFLICT', message, { name: request.name }, true);
    });
    return { agent: toAgentCard(agent), created, heartbeatTtlSeconds: this.config.heartbeatTtlSeconds };
  }

  /** A new agent is refused once its owner (an account) has `maxAgentsPerOwner`; re-registering one is not new. */
  private async checkAgentQuota(transaction: AgentsTransaction, owner: string): Promise<void> {
    const owned = await transaction.lockAndCountOwned(owner);
    const limit = this.config.maxAgentsPerOwner;
    if (owned >= limit) {
      throw new ContractError(
        'QUOTA_EXCEEDED',
        `Owner ${owner} already has ${owned} agents (at most ${limit}); deregister one first`,
        { owner, owned, limit },
      );
    }
  }

  private async reRegister(
    transaction: AgentsTransaction,
    existing: AgentEntity,
    owner: string,
    fields: AgentCardFields,
  ): Promise<AgentEntity> {
    if (existing.owner !== owner) {
      throw new ContractError(
        'CONFLICT',
        `Agent name "${existing.name}" is already registered by another owner; choose another name`,
        { name: existing.name },
      );
    }
    const now = await transaction.now();
    // An unchanged card is just a heartbeat: no new revision, no `updated` event.
    const changed = !isSameCard(cardFieldsOf(existing), fields);
    const changes: Partial<AgentEntity> = { status: 'online', lastSeenAt: now };
    if (changed) Object.assign(changes, entityColumnsOf(fields), { revision: existing.revision + 1, updatedAt: now });
    await transaction.update(existing.id, changes);
    const agent = Object.assign(new AgentEntity(), existing, changes);
    const events: OutboxMessage[] = [];
    if (changed) events.push(agentUpdated(agent));
    if (existing.status === 'offline') events.push(agentCameOnline(agent));
    await transaction.enqueue(...events);
    return agent;
  }

  /** Changes fields of a card; only its owner may. An update that changes nothing keeps the revision. */
  async update(request: UpdateAgentV1Request): Promise<AgentCardV1> {
    if (request.skills) assertUniqueSkillIds(request.skills);
    const agent = await this.agents.transaction(async (transaction) => {
      const existing = await this.lockOwned(transaction, request.id, request.owner, 'update');
      const current = cardFieldsOf(existing);
      const next = cardFieldsOf(applyUpdate(current, request));
      if (isSameCard(current, next)) return existing;
      const now = await transaction.now();
      const changes = { ...entityColumnsOf(next), revision: existing.revision + 1, updatedAt: now };
      await transaction.update(existing.id, changes);
      const updated = Object.assign(new AgentEntity(), existing, changes);
      await transaction.enqueue(agentUpdated(updated));
      return updated;
    });
    return toAgentCard(agent);
  }

  /** Removes an agent; only its owner may. Its name is free again afterwards. */
  async deregister(request: DeregisterAgentV1Request): Promise<DeregisterAgentV1Response> {
    await this.agents.transaction(async (transaction) => {
      const existing = await this.lockOwned(transaction, request.id, request.owner, 'deregister');
      await transaction.delete(existing.id);
      await transaction.enqueue(agentDeregistered(existing));
    });
    return { id: request.id, deregistered: true };
  }

  private async lockOwned(
    transaction: AgentsTransaction,
    id: string,
    owner: string,
    action: 'update' | 'deregister',
  ): Promise<AgentEntity> {
    const existing = await transaction.lockById(id);
    if (!existing) throw ContractError.notFound('Agent', id);
    if (existing.owner !== owner) {
      throw new ContractError('FORBIDDEN', `Only the owner of agent "${existing.name}" may ${action} it`, { id });
    }
    return existing;
  }

  async get(request: GetAgentV1Request): Promise<AgentCardV1> {
    if (request.id !== undefined && request.name !== undefined) {
      throw new ContractError('VALIDATION_FAILED', 'Invalid payload: give either id or name, not both', [
        { property: 'id', constraints: ['id and name are mutually exclusive'] },
      ]);
    }
    const agent =
      request.id !== undefined
        ? await this.agents.findById(request.id)
        : request.name !== undefined
          ? await this.agents.findByName(request.name)
          : null; // unreachable: validation requires one of the two
    if (!agent) throw ContractError.notFound('Agent', request.id ?? request.name ?? '');
    return toAgentCard(agent);
  }

  async list(request: ListAgentsV1Request): Promise<ListAgentsV1Response> {
    // `null` filters (allowed by @IsOptional) mean "no filter", a `null` page size the default.
    const { items, total } = await this.agents.list({
      status: request.status ?? undefined,
      owner: request.owner ?? undefined,
      ids: request.ids ?? undefined,
      limit: request.limit ?? DEFAULT_LIST_LIMIT,
      offset: request.offset ?? 0,
    });
    return { items: items.map(toAgentCard), total };
  }

  /**
   * Keeps an agent online. An online agent costs one UPDATE; an offline one comes back online (and `came-online` is
   * published). NOT_FOUND tells the agent to register again (it was deregistered, or never was).
   */
  async heartbeat(request: HeartbeatAgentV1Request): Promise<HeartbeatAgentV1Response> {
    const reply: HeartbeatAgentV1Response = { status: 'online', heartbeatTtlSeconds: this.config.heartbeatTtlSeconds };
    if (await this.agents.touchIfOnline(request.id)) return reply;
    await this.agents.transaction(async (transaction) => {
      const existing = await transaction.lockById(request.id);
      if (!existing) {
        throw new ContractError('NOT_FOUND', `Agent "${request.id}" is not registered; register it again`, {
          id: request.id,
        });
      }
      const now = await transaction.now();
      await transaction.update(existing.id, { status: 'online', lastSeenAt: now });
      // Between our first UPDATE and the lock another heartbeat may have brought it online already.
      if (existing.status === 'offline') await transaction.enqueue(agentCameOnline({ ...existing, lastSeenAt: now }));
    });
    return reply;
  }
}
