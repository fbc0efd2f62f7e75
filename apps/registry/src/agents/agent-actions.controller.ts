import { Controller } from '@nestjs/common';
import { Ctx, NatsContext, Payload } from '@nestjs/microservices';
import {
  ContractError,
  DeregisterAgentV1Request,
  DeregisterOwnAgentV1,
  HeartbeatAgentV1Request,
  HeartbeatOwnAgentV1,
  RegisterAgentV1Request,
  RegisterOwnAgentV1,
  UpdateAgentV1Request,
  UpdateOwnAgentV1,
  type AgentCardV1,
  type DeregisterAgentV1Response,
  type HeartbeatAgentV1Response,
  type RegisterAgentV1Response,
} from '@ioa/contracts';
import { actingAgentOf, HandleRequest } from '@ioa/messaging';
import { AgentIdentitiesRepository } from '../identities/agent-identities.repository.js';
import { AgentsService } from './agents.service.js';

/**
 * What an agent does about itself, on `ioa.agent.<its id>.…` (only that agent may publish there). The messaging layer
 * has already filled or checked the payload's `id` against the subject; the owner of a card registered under an
 * identity is the identity's account.
 */
@Controller()
export class AgentActionsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly identities: AgentIdentitiesRepository,
  ) {}

  @HandleRequest(RegisterOwnAgentV1)
  async onRegister(
    @Payload() request: RegisterAgentV1Request,
    @Ctx() context: NatsContext,
  ): Promise<RegisterAgentV1Response> {
    const agentId = actingAgentOf(RegisterOwnAgentV1, context.getSubject());
    await this.assertIdentityAccount(agentId, request.owner);
    return this.agents.register(request, agentId);
  }

  @HandleRequest(HeartbeatOwnAgentV1)
  onHeartbeat(@Payload() request: HeartbeatAgentV1Request): Promise<HeartbeatAgentV1Response> {
    return this.agents.heartbeat(request);
  }

  @HandleRequest(UpdateOwnAgentV1)
  onUpdate(@Payload() request: UpdateAgentV1Request): Promise<AgentCardV1> {
    return this.agents.update(request);
  }

  @HandleRequest(DeregisterOwnAgentV1)
  onDeregister(@Payload() request: DeregisterAgentV1Request): Promise<DeregisterAgentV1Response> {
    return this.agents.deregister(request);
  }

  /**
   * An agent with an identity belongs to the account that was issued it: it cannot register its card under another
   * owner (whose quota and listing it would land in). Without an identity row (a broker without authentication, as
   * in tests) the payload's owner stands, as on the registry's own subject.
   */
  private async assertIdentityAccount(agentId: string, owner: string): Promise<void> {
    const identity = await this.identities.findByAgentId(agentId);
    if (identity && identity.accountId !== owner) {
      throw new ContractError(
        'FORBIDDEN',
        `owner "${owner.slice(0, 80)}" is not the account of agent ${agentId}'s identity (${identity.accountId})`,
        { agentId, accountId: identity.accountId },
      );
    }
  }
}
