import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { ContractError } from '@ioa/contracts';
import { natsConfig } from '@ioa/config';
import { connectNats } from '@ioa/messaging';
import {
  encodeAgentUserJwt,
  encodeRevocationsAccountJwt,
  loadAgentIdentityKeys,
  pushAccountJwt,
  type AgentIdentityKeys,
  type AgentUserClaims,
} from '@ioa/trust';
import { identityConfig } from './identity.config.js';

/** Revocations as the account JWT holds them: user public key -> seconds since the epoch. */
export type Revocations = Record<string, number>;

/**
 * The registry's keys for agent identities (from `IOA_TRUST_DIR`) and its connection to the broker's system account,
 * through which it pushes the IOA account JWT when keys are revoked. Without a trust directory it is "not
 * configured", and every issue or revocation is UNAVAILABLE with that reason (a broker without authentication has
 * nothing to issue).
 */
@Injectable()
export class IdentityAuthority implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(IdentityAuthority.name);
  private keys?: AgentIdentityKeys;
  private system?: NatsConnection;
  /** Pushes one after another: the broker keeps the update it gets last, which must be the newest list. */
  private pushes: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(identityConfig.KEY) private readonly config: ConfigType<typeof identityConfig>,
    @Inject(natsConfig.KEY) private readonly nats: ConfigType<typeof natsConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.trustDir) return;
    // A trust directory that is set but incomplete fails the boot: issuing with half the keys would only fail later.
    const keys = loadAgentIdentityKeys(this.config.trustDir);
    const systemCreds = keys.systemCreds;
    this.system = await connectNats(this.nats.servers, 'registry-identity-authority', {
      authenticator: credsAuthenticator(systemCreds),
    });
    this.keys = keys;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pushes.catch(() => undefined);
    await this.system?.close();
  }

  get configured(): boolean {
    return this.keys !== undefined;
  }

  /** Throws UNAVAILABLE when the registry has no trust directory, before anything is written. */
  assertConfigured(): void {
    if (!this.keys) {
      throw new ContractError(
        'UNAVAILABLE',
        'Identity issuance is not configured: the registry has no trust directory (IOA_TRUST_DIR)',
        undefined,
        false,
      );
    }
  }

  async signAgentJwt(claims: AgentUserClaims): Promise<string> {
    this.assertConfigured();
    return encodeAgentUserJwt(this.keys!, claims);
  }

  /**
   * Hands the broker the IOA account JWT with exactly these revocations. UNAVAILABLE (retryable) when the broker
   * does not confirm: the revocation is stored, and the caller or the retry timer pushes the list again.
   */
  async pushRevocations(revocations: Revocations): Promise<void> {
    this.assertConfigured();
    const push = this.pushes.then(async () => {
      const accountJwt = await encodeRevocationsAccountJwt(this.keys!, revocations);
      await pushAccountJwt(this.system!, accountJwt);
    });
    this.pushes = push.catch(() => undefined);
    try {
      await push;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Pushing ${Object.keys(revocations).length} revocation(s) to the broker failed: ${reason}`);
      throw new ContractError(
        'UNAVAILABLE',
        'The revocation is stored but the broker has not confirmed it yet; it is pushed again shortly',
        undefined,
        true,
      );
    }
  }
}
