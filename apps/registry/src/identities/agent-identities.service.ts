import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { SchedulerRegistry } from '@nestjs/schedule';
import {
  ContractError,
  type AgentIdentityV1,
  type IssueAgentIdentityV1Request,
  type IssueAgentIdentityV1Response,
  type Principal,
} from '@ioa/contracts';
import { userPublicKeyProblem } from '@ioa/trust';
import { AgentIdentitiesRepository } from './agent-identities.repository.js';
import { AgentIdentityEntity } from './agent-identity.entity.js';
import { decideIssue, decideRevoke, requireAccount, visibleTo, type IssueDecision } from './agent-identity.rules.js';
import { IdentityAuthority } from './identity-authority.js';
import { identityConfig } from './identity.config.js';

/** The retry timer's name in `@nestjs/schedule`'s registry. */
export const REVOCATION_RETRY = 'revocation-retry';

/**
 * Issue, rotate, renew and revoke agent identities: decide (pure rules) -> write (one unit of work) -> publish (the
 * JWT is signed after the commit; revocations are pushed to the broker after it, as the complete list, so a retry
 * or another replica's push can never lose one).
 */
@Injectable()
export class AgentIdentitiesService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AgentIdentitiesService.name);
  /** A push the broker did not confirm: the timer pushes the list again until it does. */
  private unconfirmed = false;
  private retrying?: Promise<void>;

  constructor(
    private readonly identities: AgentIdentitiesRepository,
    private readonly authority: IdentityAuthority,
    private readonly schedules: SchedulerRegistry,
    @Inject(identityConfig.KEY) private readonly config: ConfigType<typeof identityConfig>,
  ) {}

  /**
   * At boot the broker gets the full list once: its resolver store may be newer than the registry's last push, or
   * gone (a fresh broker pod preloaded with the provisioned account JWT).
   */
  onApplicationBootstrap(): void {
    if (!this.authority.configured) return;
    this.schedules.addInterval(
      REVOCATION_RETRY,
      setInterval(() => this.retryPush(), this.config.revocationRetryMs),
    );
    // Only a non-empty list: an empty one would void revocations the broker has from before a lost database.
    this.retrying = this.identities
      .countRevokedKeys()
      .then((count) => {
        this.unconfirmed = count > 0;
      })
      .catch(() => {
        this.unconfirmed = true;
      })
      .finally(() => (this.retrying = undefined));
  }

  async onModuleDestroy(): Promise<void> {
    if (this.schedules.doesExist('interval', REVOCATION_RETRY)) this.schedules.deleteInterval(REVOCATION_RETRY);
    await this.retrying;
  }

  async issue(
    request: IssueAgentIdentityV1Request,
    principal: Principal | undefined,
  ): Promise<IssueAgentIdentityV1Response> {
    // What the caller can fix comes first (the key, the account), then whether this registry can issue at all.
    const problem = userPublicKeyProblem(request.publicKey);
    if (problem) {
      throw new ContractError('VALIDATION_FAILED', `Invalid payload: ${problem}`, [
        { property: 'publicKey', constraints: [problem] },
      ]);
    }
    requireAccount(principal);
    this.authority.assertConfigured();
    const ttlSeconds = Math.min(request.expiresInSeconds ?? this.config.ttlSeconds, this.config.ttlSeconds);
    const decision = await this.identities.transaction(async (transaction) => {
      const existing = request.agentId === undefined ? null : await transaction.lock(request.agentId);
      // The registry's clock, the one that stamps the JWT's `iat`: a revocation time taken from it is never earlier
      // than the revoked JWT's issue time.
      const now = new Date();
      const decided = decideIssue({
        publicKey: request.publicKey,
        agentId: request.agentId,
        principal,
        existing,
        keyUse: await transaction.keyUse(request.publicKey),
        now,
        ttlSeconds,
        newAgentId: randomUUID(),
      });
      await transaction.save(
        Object.assign(new AgentIdentityEntity(), {
          ...decided.identity,
          revokedAt: null,
        } satisfies AgentIdentityEntity),
      );
      if (decided.kind === 'rotate' && decided.revokedPublicKey) {
        await transaction.revokeKey(decided.identity.agentId, decided.revokedPublicKey, now);
      }
      return decided;
    });
    const jwt = await this.authority.signAgentJwt({ ...decision.identity });
    if (this.revokesAnything(decision)) await this.pushRevocations();
    return {
      agentId: decision.identity.agentId,
      accountId: decision.identity.accountId,
      jwt,
      expiresAt: decision.identity.expiresAt.toISOString(),
      created: decision.kind === 'create',
      revokedPublicKey: decision.kind === 'rotate' ? decision.revokedPublicKey : null,
    };
  }

  /**
   * Revokes the agent's current key: the broker closes its connections and refuses the key from then on. Idempotent:
   * revoking a revoked identity pushes the list again (a caller retrying after UNAVAILABLE gets it confirmed).
   */
  async revoke(agentId: string, principal: Principal | undefined): Promise<AgentIdentityV1> {
    await this.identities.transaction(async (transaction) => {
      const identity = await transaction.lock(agentId);
      const decision = decideRevoke(identity, principal, agentId, new Date());
      // After NOT_FOUND (an identity exists only where issuance was configured), before anything is written.
      this.authority.assertConfigured();
      if (decision.kind === 'already-revoked') return;
      await transaction.revokeKey(agentId, decision.publicKey, decision.revokedAt);
      await transaction.save(Object.assign(identity!, { revokedAt: decision.revokedAt }));
      await transaction.markAgentOffline(agentId);
    });
    await this.pushRevocations();
    return this.get(agentId, principal);
  }

  async get(agentId: string, principal: Principal | undefined): Promise<AgentIdentityV1> {
    const identity = visibleTo(await this.identities.findByAgentId(agentId), requireAccount(principal), agentId);
    return {
      agentId: identity.agentId,
      accountId: identity.accountId,
      publicKey: identity.publicKey,
      status: identity.revokedAt ? 'revoked' : 'active',
      issuedAt: identity.issuedAt.toISOString(),
      expiresAt: identity.expiresAt.toISOString(),
      revokedAt: identity.revokedAt ? identity.revokedAt.toISOString() : null,
      revokedPublicKeys: await this.identities.revokedKeysOf(agentId),
    };
  }

  private revokesAnything(decision: IssueDecision): boolean {
    return decision.kind === 'rotate' && decision.revokedPublicKey !== null;
  }

  private async pushRevocations(): Promise<void> {
    try {
      await this.authority.pushRevocations(await this.identities.revocations());
      this.unconfirmed = false;
    } catch (error) {
      this.unconfirmed = true;
      throw error;
    }
  }

  /** One retry; skipped while one runs, and when the broker has confirmed the newest list. */
  private retryPush(): void {
    if (!this.unconfirmed || this.retrying) return;
    this.retrying = this.pushRevocations()
      .then(() => this.logger.log('The broker confirmed the revocation list'))
      .catch(() => undefined) // logged by the authority; the next tick tries again
      .finally(() => (this.retrying = undefined));
  }
}
