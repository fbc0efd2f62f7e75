import { Injectable } from '@nestjs/common';
import {
  ContractError,
  GetGoalV1,
  GetGroupV1,
  ListGroupsV1,
  ListGroupsV1Request,
  ListMessagesV1,
  ListMessagesV1Request,
  type GroupV1,
  type ListGroupsV1Response,
  type ListMessagesV1Response,
} from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import type { ListGroupMessagesQueryDto } from './dto/list-group-messages.query.js';
import type { ListGroupsQueryDto } from './dto/list-groups.query.js';

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
   * A page of groups. For a member, the page keeps only the groups of goals the caller may see, so it can hold fewer
   * than `limit` items while `nextCursor` still leads on (the cursor is the chat's, over every group).
   */
  async list(query: ListGroupsQueryDto, options: RequestOptions = {}): Promise<ListGroupsV1Response> {
    // A contract instance, so its declared default (limit 20) fills what the query left out.
    const request = new ListGroupsV1Request();
    if (query.state !== undefined) request.state = query.state;
    if (query.goalId !== undefined) request.goalId = query.goalId;
    if (query.cursor !== undefined) request.cursor = query.cursor;
    if (query.limit !== undefined) request.limit = query.limit;
    const page = await this.client.request(ListGroupsV1, request, options);
    if (!options.principal || options.principal.role === 'admin') return page;
    const visible = await Promise.all(page.items.map((group) => this.isGoalVisible(group.goalId, options)));
    return { ...page, items: page.items.filter((_group, index) => visible[index]) };
  }

  private async isGoalVisible(goalId: string, options: RequestOptions): Promise<boolean> {
    try {
      await this.client.request(GetGoalV1, { goalId }, options);
      return true;
    } catch (error) {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') return false;
      throw error;
    }
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
