import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ListGroupsV1Response } from '@ioa/contracts';
import type { RequestOptions } from '@ioa/messaging';
import { contractResponseSchema } from '../http/contract-response-schema.js';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { ListGroupsQueryDto } from './dto/list-groups.query.js';
import { GroupsService } from './groups.service.js';

/** `GET /v1/groups`, beside `GroupsController` (whose `:id` routes never match the bare collection path). */
@ApiTags('groups')
@ApiBadRequestResponse({ type: HttpErrorDto, description: 'Invalid filter, limit or cursor; `details` names each.' })
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The chat service did not answer in time.' })
@Controller({ path: 'groups', version: '1' })
export class GroupListController {
  constructor(private readonly groups: GroupsService) {}

  @Get()
  @ApiOperation({
    summary: 'List group chats, newest first',
    description:
      'Each group with its state, members and the seq of its newest message. Filter by `state` (one or several) ' +
      "or `goalId`; page with `cursor` = the previous page's `nextCursor` (absent on the last page). A group " +
      "follows its goal: a member's API key sees the groups of its account's goals.",
  })
  @ApiOkResponse({ schema: contractResponseSchema(ListGroupsV1Response), description: 'A page of groups.' })
  list(@Query() query: ListGroupsQueryDto, @TraceContext() trace: RequestOptions): Promise<ListGroupsV1Response> {
    return this.groups.list(query, trace);
  }
}
