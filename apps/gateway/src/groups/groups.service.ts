import { Injectable } from '@nestjs/common';
import {
  ContractError,
  GetGoalV1,
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

  async get(groupId: string, options: RequestOptions = {}): Promise<GroupV1> {
    const group = await this.client.request(GetGroupV1, { groupId }, options);
    await this.checkVisible(group, options);
    return group;
  }

  async listMessages(
    groupId: string,
    query: ListGroupMessagesQueryDto,
    options: RequestOptions = {},
  ): Promise<ListMessagesV1Response> {
    // A contract instance, so its declared defaults (afterSeq 0, limit 100) fill what the query left out.
    const request = Object.assign(new ListMessagesV1Request(), { groupId });
    if (query.afterSeq !== undefined) request.afterSeq = query.afterSeq;
    if (query.limit !== undefined) request.limit = query.limit;
    if (options.principal && options.principal.role !== 'admin') await this.get(groupId, options);
    return this.client.request(ListMessagesV1, request, options);
  }

  /**
   * A group follows its goal: a caller who may not see the goal (the scheduler answers NOT_FOUND for another
   * account's goal) is told the group does not exist either, so existence does not leak. Admins see every group.
   */
  private async checkVisible(group: GroupV1, options: RequestOptions): Promise<void> {
    if (!options.principal || options.principal.role === 'admin') return;
    try {
      await this.client.request(GetGoalV1, { goalId: group.goalId }, options);
    } catch (error) {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') throw ContractError.notFound('Group', group.id);
      throw error;
    }
  }
}
