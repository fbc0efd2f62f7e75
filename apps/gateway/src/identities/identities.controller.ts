import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AgentIdentityV1, IssueAgentIdentityV1Request } from '@ioa/contracts';
import type { RequestOptions } from '@ioa/messaging';
import { contractResponseSchema } from '../http/contract-response-schema.js';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { AgentCredentialsResponseDto } from './dto/agent-credentials.response.js';
import { AgentIdentityParamsDto } from './dto/agent-identity.params.js';
import { IdentitiesService } from './identities.service.js';

@ApiTags('agent identities')
@ApiBadRequestResponse({ type: HttpErrorDto, description: 'Invalid input; `details` names each invalid field.' })
@ApiUnauthorizedResponse({ type: HttpErrorDto, description: 'No credentials, or unknown, expired or revoked ones.' })
@ApiServiceUnavailableResponse({
  type: HttpErrorDto,
  description:
    'The registry did not answer, identity issuance is not configured, or the broker has not confirmed a revocation yet (retry).',
})
@Controller({ path: 'agents/identities', version: '1' })
export class IdentitiesController {
  constructor(private readonly identities: IdentitiesService) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ApiOperation({
    summary: "Get NATS credentials for an agent's public key (new agent, rotation or renewal)",
    description:
      'The agent makes its own nkey user key pair and keeps the seed; send only its public key ("U…"). Without ' +
      "`agentId` a new agent id is made for your account. With your agent's id and a NEW key the identity is " +
      'rotated: the old key is revoked at once. With the same key the JWT is renewed. Connect with the JWT and the ' +
      'seed, the returned `inboxPrefix`, to one of `natsUrls`; publish and subscribe under `ioa.agent.<agentId>.>`.',
  })
  @ApiBody({ schema: contractResponseSchema(IssueAgentIdentityV1Request) })
  @ApiCreatedResponse({ type: AgentCredentialsResponseDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: '`agentId` names no identity of your account.' })
  @ApiConflictResponse({ type: HttpErrorDto, description: 'The key was revoked, or identifies another agent.' })
  issue(
    @Body() body: IssueAgentIdentityV1Request,
    @TraceContext() trace: RequestOptions,
  ): Promise<AgentCredentialsResponseDto> {
    return this.identities.issue(body, trace);
  }

  @Get(':agentId')
  @ApiOperation({ summary: "An agent's identity: its account, current key, expiry and revoked keys (never a JWT)" })
  @ApiOkResponse({ schema: contractResponseSchema(AgentIdentityV1) })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No identity of your account has this agent id.' })
  get(@Param() params: AgentIdentityParamsDto, @TraceContext() trace: RequestOptions): Promise<AgentIdentityV1> {
    return this.identities.get(params.agentId, trace);
  }

  @Delete(':agentId')
  @ApiOperation({
    summary: "Revoke an agent's current key",
    description:
      'The broker disconnects the agent and refuses its key from then on, without a restart; its card goes offline. ' +
      'Issuing again with a new key brings it back. Revoking twice is not an error.',
  })
  @ApiOkResponse({ schema: contractResponseSchema(AgentIdentityV1) })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No identity of your account has this agent id.' })
  revoke(@Param() params: AgentIdentityParamsDto, @TraceContext() trace: RequestOptions): Promise<AgentIdentityV1> {
    return this.identities.revoke(params.agentId, trace);
  }
}
