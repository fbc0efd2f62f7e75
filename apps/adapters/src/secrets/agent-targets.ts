import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Not, IsNull, type Repository } from 'typeorm';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import { AdaptedAgentEntity } from '../agents/adapted-agent.entity.js';
import type { EndpointTarget } from '../tasks/endpoint-runner.js';
import { SecretBox } from './secret-box.js';

/**
 * Development only: without ADAPTERS_SECRET_KEY (tests, a laptop) secrets are sealed under this fixed key, which
 * protects nothing; `npm start` creates a real key under its data dir, and production refuses to boot without one.
 */
const DEVELOPMENT_KEY = createHash('sha256').update('ioa-adapters development key: not a secret').digest();

/**
 * The one place an agent's secret is opened: `of(agent)` gives a runner the endpoint with its secret in clear, and
 * `seal` is how a secret reaches the table. At boot, secrets left in plaintext or sealed under an earlier master
 * key are re-sealed under the current one, so a rotated-out key can be dropped after one boot.
 */
@Injectable()
export class AgentTargets implements OnApplicationBootstrap {
  private readonly logger = new Logger(AgentTargets.name);
  private readonly box: SecretBox;

  constructor(
    @Inject(adaptersConfig.KEY) config: AdaptersConfig,
    @InjectRepository(AdaptedAgentEntity) private readonly agents: Repository<AdaptedAgentEntity>,
  ) {
    const { key, previousKeys, production } = config.secrets;
    if (!key && production) {
      throw new Error(
        "ADAPTERS_SECRET_KEY is required in production (32 random bytes, base64): it seals agents' secrets",
      );
    }
    if (!key) this.logger.warn("ADAPTERS_SECRET_KEY is not set: agents' secrets are sealed under a development key");
    this.box = new SecretBox(
      key ? Buffer.from(key, 'base64') : DEVELOPMENT_KEY,
      previousKeys.map((previous) => Buffer.from(previous, 'base64')),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.resealAll();
    } catch (error) {
      // Left as they are, still readable (an earlier key is still configured); the next boot tries again.
      this.logger.warn(`Re-sealing agents' secrets failed: ${(error as Error).message}`);
    }
  }

  /** The endpoint as a runner needs it, secret opened. */
  of(agent: AdaptedAgentEntity): EndpointTarget & { agentId: string } {
    return {
      agentId: agent.id,
      kind: agent.kind,
      url: agent.url,
      settings: agent.settings,
      secret: agent.secret === null ? null : this.box.open(agent.secret),
    };
  }

  seal(secret: string | null): string | null {
    return secret === null ? null : this.box.seal(secret);
  }

  /** Re-seals what is not sealed under the current key. Replicas may race: each writes a valid sealed value. */
  async resealAll(): Promise<number> {
    const rows = await this.agents.findBy({ secret: Not(IsNull()) });
    let resealed = 0;
    for (const row of rows) {
      if (!row.secret || !this.box.needsResealing(row.secret)) continue;
      const sealed = this.box.seal(this.box.open(row.secret));
      await this.agents.update({ id: row.id, secret: row.secret }, { secret: sealed });
      resealed += 1;
    }
    if (resealed > 0) this.logger.log(`Re-sealed ${resealed} agent secret(s) under the current key`);
    return resealed;
  }
}
