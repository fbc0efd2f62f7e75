import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  AdaptedAgentV1,
  AgentCardV1,
  DeregisterAdaptedAgentV1Response,
  RegisterAdaptedAgentV1Request,
  UpdateAdaptedAgentV1Request,
} from '@ioa/contracts';
import type { RequestOptions } from '@ioa/messaging';
import { contractResponseSchema } from '../http/contract-response-schema.js';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { AgentsService } from './agents.service.js';
import { DeregisterAgentRequestDto, UpdateAgentRequestDto } from './dto/adapted-agent.requests.js';
import { AgentIdParamsDto } from './dto/agent-id.params.js';
import { AgentListResponseDto } from './dto/agent-list.response.js';
import { ListAgentsQueryDto } from './dto/list-agents.query.js';

@ApiTags('agents')
@ApiBadRequestResponse({
  type: HttpErrorDto,
  description: 'Invalid parameters; `details` names each invalid field.',
})
@ApiServiceUnavailableResponse({
  type: HttpErrorDto,
  description: 'The registry or discovery did not answer in time.',
})
@Controller({ path: 'agents', version: '1' })
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Get()
  @ApiOperation({
    summary: 'List agents, or search them by what they can do',
    description:
      'Without `q`: agent cards from the registry, newest first, paged with `limit`/`offset`. ' +
      'With `q`: a semantic search through discovery, best match first, with `score` and `matchedQuery` on each item.',
  })
  @ApiOkResponse({
    type: AgentListResponseDto,
    description: 'A page of agents, or the ranked matches of a search.',
  })
  list(@Query() query: ListAgentsQueryDto, @TraceContext() trace: RequestOptions): Promise<AgentListResponseDto> {
    return this.agents.list(query, trace);
  }

  @Get(':id')
  @ApiOperation({ summary: "One agent's card" })
  @ApiOkResponse({
    schema: { $ref: getSchemaPath(AgentCardV1) },
    description: 'The agent card, as the registry stores it.',
  })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No agent has this id.' })
  get(@Param() params: AgentIdParamsDto, @TraceContext() trace: RequestOptions): Promise<AgentCardV1> {
    return this.agents.get(params.id, trace);
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @ApiOperation({
    summary: 'Register an agent reached over A2A, MCP, an OpenAI-compatible endpoint or a webhook',
    description:
      'The adapters service reads what the endpoint says about itself (an A2A agent card from its URL alone, an ' +
      "MCP server's tools), checks that it answers, writes the card to the registry and serves the agent's tasks. " +
      'Secrets (`apiKey`, `secret`) are kept by the adapters service and never returned. Agents that speak NATS ' +
      'register themselves over NATS.',
  })
  @ApiBody({ schema: contractResponseSchema(RegisterAdaptedAgentV1Request) })
  @ApiCreatedResponse({
    schema: contractResponseSchema(AdaptedAgentV1),
    description: 'The card, and the endpoint with whether it is reachable (never its secret).',
  })
  @ApiConflictResponse({ type: HttpErrorDto, description: 'Another owner has an agent of this name.' })
  register(
    @Body() body: RegisterAdaptedAgentV1Request,
    @TraceContext() trace: RequestOptions,
  ): Promise<AdaptedAgentV1> {
    return this.agents.register(body, trace);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change an adapted agent (its endpoint or card fields); only its owner may' })
  @ApiBody({ schema: contractResponseSchema(UpdateAdaptedAgentV1Request) })
  @ApiOkResponse({ schema: contractResponseSchema(AdaptedAgentV1), description: 'The agent after the change.' })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No adapted agent has this id.' })
  @ApiForbiddenResponse({ type: HttpErrorDto, description: "`owner` is not the agent's owner." })
  update(
    @Param() params: AgentIdParamsDto,
    @Body() body: UpdateAgentRequestDto,
    @TraceContext() trace: RequestOptions,
  ): Promise<AdaptedAgentV1> {
    return this.agents.update(params.id, body, trace);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove an adapted agent from the network; only its owner may' })
  @ApiBody({ type: DeregisterAgentRequestDto })
  @ApiOkResponse({ schema: contractResponseSchema(DeregisterAdaptedAgentV1Response) })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No adapted agent has this id.' })
  @ApiForbiddenResponse({ type: HttpErrorDto, description: "`owner` is not the agent's owner." })
  deregister(
    @Param() params: AgentIdParamsDto,
    @Body() body: DeregisterAgentRequestDto,
    @TraceContext() trace: RequestOptions,
  ): Promise<DeregisterAdaptedAgentV1Response> {
    return this.agents.deregister(params.id, body, trace);
  }
}
