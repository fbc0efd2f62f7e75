import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { AgentCard } from '@a2a-js/sdk';
import { ListAgentsV1, type AgentCardV1 } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { authConfig } from '../auth/auth.config.js';
import { GoalsService } from '../goals/goals.service.js';
import { a2aConfig } from './a2a.config.js';
import { A2aTaskStore } from './a2a-task-store.js';
import { buildAgentCard } from './agent-card.js';
import { GoalAgentExecutor } from './goal-agent-executor.js';
import { GoalRequestHandler } from './goal-request-handler.js';

/** The facade's version, as its card states it. */
const CARD_VERSION = '0.1.0';
/** The network's agents change slowly; the card (fetched by every new client) need not ask the registry each time. */
const SKILLS_TTL_MS = 10_000;
/** Stands in for the gateway's address in the request handler's own copy of the card, which only checks versions. */
const INTERNAL_BASE_URL = 'http://gateway.invalid';

/**
 * The gateway as an A2A agent: the SDK's request handler over our executor and PostgreSQL task store, and the
 * agent card, whose skills are the network's online agents (from the registry).
 */
@Injectable()
export class A2aFacade {
  private readonly logger = new Logger(A2aFacade.name);
  readonly requestHandler: GoalRequestHandler;
  private agents: { at: number; items: Promise<AgentCardV1[]> } | undefined;

  constructor(
    executor: GoalAgentExecutor,
    tasks: A2aTaskStore,
    goals: GoalsService,
    private readonly client: ContractClient,
    @Inject(a2aConfig.KEY) private readonly config: ConfigType<typeof a2aConfig>,
    @Inject(authConfig.KEY) private readonly auth: ConfigType<typeof authConfig>,
  ) {
    this.requestHandler = new GoalRequestHandler(
      buildAgentCard(INTERNAL_BASE_URL, [], CARD_VERSION),
      tasks,
      executor,
      goals,
    );
  }

  /** The card served at `/.well-known/agent-card.json`; `requestBaseUrl` is used unless a public URL is configured. */
  async agentCard(requestBaseUrl: string): Promise<AgentCard> {
    const baseUrl = this.config.publicUrl ?? requestBaseUrl;
    return buildAgentCard(baseUrl, await this.onlineAgents(), CARD_VERSION, this.auth.oidc?.issuer);
  }

  private async onlineAgents(): Promise<AgentCardV1[]> {
    const now = Date.now();
    if (!this.agents || now - this.agents.at > SKILLS_TTL_MS) {
      const items = this.client
        .request(ListAgentsV1, { status: 'online', limit: this.config.maxSkillAgents, offset: 0 })
        .then((page) => page.items);
      this.agents = { at: now, items };
      // A card without the network's skills is better than no card: the goal skill still works.
      items.catch((error: unknown) => {
        this.logger.warn(`Agent card without the network's skills: ${(error as Error).message}`);
        if (this.agents?.items === items) this.agents = undefined;
      });
    }
    return this.agents.items.catch(() => []);
  }
}
