import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { AgentCardV1 } from '@ioa/contracts';
import type { RequestOptions } from '@ioa/messaging';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { AgentsService } from './agents.service.js';
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
}
