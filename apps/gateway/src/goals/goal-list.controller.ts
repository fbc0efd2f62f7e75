import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ListGoalsV1, ListGoalsV1Request, ListGoalsV1Response } from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import { contractResponseSchema } from '../http/contract-response-schema.js';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { ListGoalsQueryDto } from './dto/list-goals.query.js';

/**
 * `GET /v1/goals`, beside (not inside) `GoalsController`: listing is a read of the scheduler's list subject with no
 * use case of its own, and `/v1/goals/:id` routes never match the bare collection path.
 */
@ApiTags('goals')
@ApiBadRequestResponse({ type: HttpErrorDto, description: 'Invalid filter, limit or cursor; `details` names each.' })
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The scheduler did not answer in time.' })
@Controller({ path: 'goals', version: '1' })
export class GoalListController {
  constructor(private readonly client: ContractClient) {}

  @Get()
  @ApiOperation({
    summary: 'List goals, newest first',
    description:
      'Each goal with its status, team (and why each member was chosen), usage and budget. Filter by `status` ' +
      "(one or several) and `parentGoalId` / `topLevelOnly`; page with `cursor` = the previous page's " +
      "`nextCursor` (absent on the last page). A member's API key sees its account's goals; an admin sees all.",
  })
  @ApiOkResponse({ schema: contractResponseSchema(ListGoalsV1Response), description: 'A page of goals.' })
  list(@Query() query: ListGoalsQueryDto, @TraceContext() trace: RequestOptions): Promise<ListGoalsV1Response> {
    // A contract instance, so its declared default (limit 20) fills what the query left out.
    const request = new ListGoalsV1Request();
    if (query.status !== undefined) request.status = query.status;
    if (query.parentGoalId !== undefined) request.parentGoalId = query.parentGoalId;
    if (query.topLevelOnly !== undefined) request.topLevelOnly = query.topLevelOnly;
    if (query.cursor !== undefined) request.cursor = query.cursor;
    if (query.limit !== undefined) request.limit = query.limit;
    return this.client.request(ListGoalsV1, request, trace);
  }
}
