import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { GroupV1, ListMessagesV1Response } from '@ioa/contracts';
import type { RequestOptions } from '@ioa/messaging';
import { contractResponseSchema } from '../http/contract-response-schema.js';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { GroupIdParamsDto } from './dto/group-id.params.js';
import { ListGroupMessagesQueryDto } from './dto/list-group-messages.query.js';
import { GroupsService } from './groups.service.js';

@ApiTags('groups')
@ApiBadRequestResponse({ type: HttpErrorDto, description: 'Invalid parameters; `details` names each invalid field.' })
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The chat service did not answer in time.' })
@ApiNotFoundResponse({ type: HttpErrorDto, description: 'No group has this id.' })
@Controller({ path: 'groups', version: '1' })
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Get(':id')
  @ApiOperation({
    summary: "A goal's group chat: state, members, whose turn it is, the task ledger",
  })
  @ApiOkResponse({ schema: contractResponseSchema(GroupV1), description: 'The group, as the chat service holds it.' })
  get(@Param() params: GroupIdParamsDto, @TraceContext() trace: RequestOptions): Promise<GroupV1> {
    return this.groups.get(params.id, trace);
  }

  @Get(':id/messages')
  @ApiOperation({
    summary: "A page of the group's messages, in seq order",
    description: "Page with `afterSeq` = the last seq received; `lastSeq` is the seq of the group's newest message.",
  })
  @ApiOkResponse({ schema: contractResponseSchema(ListMessagesV1Response), description: 'A page of messages.' })
  listMessages(
    @Param() params: GroupIdParamsDto,
    @Query() query: ListGroupMessagesQueryDto,
    @TraceContext() trace: RequestOptions,
  ): Promise<ListMessagesV1Response> {
    return this.groups.listMessages(params.id, query, trace);
  }
}
