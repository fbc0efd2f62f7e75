import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import {
  GetAgentIdentityV1,
  IssueAgentIdentityV1,
  RevokeAgentIdentityV1,
  type AgentIdentityV1,
  type IssueAgentIdentityV1Request,
} from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import { inboxPrefixOf } from '@ioa/trust';
import type { AgentCredentialsResponseDto } from './dto/agent-credentials.response.js';
import { identityRoutesConfig } from './identity-routes.config.js';

/**
 * Agent identities over HTTP. The registry decides everything (it is the identity authority); the caller's account
 * travels as `Ioa-Principal` in `trace`, and the gateway adds only where and how to connect.
 */
@Injectable()
export class IdentitiesService {
  constructor(
    private readonly client: ContractClient,
    @Inject(identityRoutesConfig.KEY) private readonly config: ConfigType<typeof identityRoutesConfig>,
  ) {}

  async issue(body: IssueAgentIdentityV1Request, trace: RequestOptions): Promise<AgentCredentialsResponseDto> {
    const issued = await this.client.request(IssueAgentIdentityV1, body, trace);
    return { ...issued, natsUrls: this.config.agentNatsUrls, inboxPrefix: inboxPrefixOf(issued.agentId) };
  }

  get(agentId: string, trace: RequestOptions): Promise<AgentIdentityV1> {
    return this.client.request(GetAgentIdentityV1, { agentId }, trace);
  }

  revoke(agentId: string, trace: RequestOptions): Promise<AgentIdentityV1> {
    return this.client.request(RevokeAgentIdentityV1, { agentId }, trace);
  }
}
