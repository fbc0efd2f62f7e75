import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { Transactions, type UnitOfWork } from '@ioa/database';
import { AgentEntity } from '../agents/agent.entity.js';
import { agentWentOffline } from '../agents/agent.events.js';
import { AgentIdentityEntity, RevokedAgentKeyEntity } from './agent-identity.entity.js';
import type { KeyUse } from './agent-identity.rules.js';
import { revocationTime } from '@ioa/trust';
import type { Revocations } from './identity-authority.js';

/**
 * Identity writes inside one unit of work. The identity row is read with a row lock, so two rotations of one agent
 * run one after the other; a key's uniqueness is the database's (unique index, primary key), so two agents racing
 * for one key cannot both get it.
 */
export class AgentIdentitiesTransaction {
  constructor(private readonly unit: UnitOfWork) {}

  private get manager(): EntityManager {
    return this.unit.manager;
  }

  lock(agentId: string): Promise<AgentIdentityEntity | null> {
    return this.manager.findOne(AgentIdentityEntity, { where: { agentId }, lock: { mode: 'pessimistic_write' } });
  }

  async keyUse(publicKey: string): Promise<KeyUse | null> {
    const revoked = await this.manager.findOneBy(RevokedAgentKeyEntity, { publicKey });
    if (revoked) return { agentId: revoked.agentId, revoked: true };
    const current = await this.manager.findOneBy(AgentIdentityEntity, { publicKey });
    return current ? { agentId: current.agentId, revoked: false } : null;
  }

  async save(identity: AgentIdentityEntity): Promise<void> {
    await this.manager.save(AgentIdentityEntity, identity);
  }

  async revokeKey(agentId: string, publicKey: string, revokedAt: Date): Promise<void> {
    await this.manager.insert(RevokedAgentKeyEntity, { agentId, publicKey, revokedAt });
  }

  /**
   * A revoked agent cannot heartbeat any more, so its card goes offline now rather than a TTL later (and
   * discovery stops offering it); a new key brings it back with its next heartbeat.
   */
  async markAgentOffline(agentId: string): Promise<void> {
    const agent = await this.manager.findOne(AgentEntity, {
      where: { id: agentId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!agent || agent.status === 'offline') return;
    await this.manager.update(AgentEntity, { id: agentId }, { status: 'offline' });
    await this.unit.enqueue(agentWentOffline(agent));
  }
}

@Injectable()
export class AgentIdentitiesRepository {
  constructor(
    @InjectRepository(AgentIdentityEntity) private readonly identities: Repository<AgentIdentityEntity>,
    @InjectRepository(RevokedAgentKeyEntity) private readonly revokedKeys: Repository<RevokedAgentKeyEntity>,
    private readonly transactions: Transactions,
  ) {}

  transaction<T>(work: (transaction: AgentIdentitiesTransaction) => Promise<T>): Promise<T> {
    return this.transactions.run((unit) => work(new AgentIdentitiesTransaction(unit)));
  }

  /** The identity of an agent id, if it has one (registration over `ioa.agent.<id>.register.v1` reads its account). */
  findByAgentId(agentId: string): Promise<AgentIdentityEntity | null> {
    return this.identities.findOneBy({ agentId });
  }

  async revokedKeysOf(agentId: string): Promise<string[]> {
    const rows = await this.revokedKeys.find({ where: { agentId }, order: { revokedAt: 'ASC', publicKey: 'ASC' } });
    return rows.map((row) => row.publicKey);
  }

  async countRevokedKeys(): Promise<number> {
    return this.revokedKeys.count();
  }

  /** Every key ever revoked, as the account JWT's `revocations` hold them. */
  async revocations(): Promise<Revocations> {
    const rows = await this.revokedKeys.find();
    return Object.fromEntries(rows.map((row) => [row.publicKey, revocationTime(row.revokedAt)]));
  }
}
