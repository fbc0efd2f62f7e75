import { Injectable } from '@nestjs/common';
import {
  GetGroupV1,
  ListMessagesV1,
  ListMessagesV1Request,
  type GroupV1,
  type ListMessagesV1Response,
} from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import type { ListGroupMessagesQueryDto } from './dto/list-group-messages.query.js';

/** Group chats over HTTP (read only: members speak through the chat's NATS contract). */
@Injectable()
export class GroupsService {
  constructor(private readonly client: ContractClient) {}

  get(groupId: string, options: RequestOptions = {}): Promise<GroupV1> {
    return this.client.request(GetGroupV1, { groupId }, options);
  }

  listMessages(
    groupId: string,
    query: ListGroupMessagesQueryDto,
    options: RequestOptions = {},
  ): Promise<ListMessagesV1Response> {
    // A contract instance, so its declared defaults (afterSeq 0, limit 100) fill what the query left out.
    const request = Object.assign(new ListMessagesV1Request(), { groupId });
    if (query.afterSeq !== undefined) request.afterSeq = query.afterSeq;
    if (query.limit !== undefined) request.limit = query.limit;
    return this.client.request(ListMessagesV1, request, options);
  }
}
