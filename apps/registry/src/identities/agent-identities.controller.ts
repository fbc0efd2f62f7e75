import { Controller } from '@nestjs/common';
import { Ctx, NatsContext, Payload } from '@nestjs/microservices';
import {
  AgentIdentityV1Request,
  GetAgentIdentityV1,
  IssueAgentIdentityV1,
  IssueAgentIdentityV1Request,
  RevokeAgentIdentityV1,
  type AgentIdentityV1,
  type IssueAgentIdentityV1Response,
} from '@ioa/contracts';
import { HandleRequest, principalOf } from '@ioa/messaging';
import { AgentIdentitiesService } from './agent-identities.service.js';

/**
 * The identity subjects. The acting account is the `Ioa-Principal` header, which only the gateway (for an
 * authenticated REST caller) may send here: the broker lets no agent publish on registry subjects.
 */
@Controller()
export class AgentIdentitiesController {
  constructor(private readonly identities: AgentIdentitiesService) {}

  @HandleRequest(IssueAgentIdentityV1)
  onIssue(
    @Payload() request: IssueAgentIdentityV1Request,
    @Ctx() context: NatsContext,
  ): Promise<IssueAgentIdentityV1Response> {
    return this.identities.issue(request, principalOf(context));
  }

  @HandleRequest(GetAgentIdentityV1)
  onGet(@Payload() request: AgentIdentityV1Request, @Ctx() context: NatsContext): Promise<AgentIdentityV1> {
    return this.identities.get(request.agentId, principalOf(context));
  }

  @HandleRequest(RevokeAgentIdentityV1)
  onRevoke(@Payload() request: AgentIdentityV1Request, @Ctx() context: NatsContext): Promise<AgentIdentityV1> {
    return this.identities.revoke(request.agentId, principalOf(context));
  }
}
