import { Injectable } from '@nestjs/common';
import {
  decodeListCursor,
  encodeListCursor,
  type GroupSummaryV1,
  type ListGroupsV1Request,
  type ListGroupsV1Response,
} from '@ioa/contracts';
import { DataSource, In } from 'typeorm';
import { GroupMemberEntity } from './group-member.entity.js';
import { GroupEntity } from './group.entity.js';
import { toGroupMemberV1 } from './group.mapper.js';

/**
 * Reads pages of group chats, newest first (read only). Groups carry no account: the gateway shows a member only the
 * groups of goals it may see ("a group follows its goal").
 */
@Injectable()
export class GroupListService {
  constructor(private readonly dataSource: DataSource) {}

  async list(request: ListGroupsV1Request): Promise<ListGroupsV1Response> {
    const after = request.cursor === undefined ? undefined : decodeListCursor(request.cursor);
    const manager = this.dataSource.manager;
    const query = manager
      .createQueryBuilder(GroupEntity, 'group')
      .orderBy('group.createdAt', 'DESC')
      .addOrderBy('group.id', 'DESC')
      // One more than the page: whether it exists says if there is a next page, without a count query.
      .limit(request.limit + 1);
    if (request.state?.length) query.andWhere('group.state IN (:...states)', { states: request.state });
    if (request.goalId !== undefined) query.andWhere('group.goalId = :goalId', { goalId: request.goalId });
    if (after) {
      query.andWhere('(group.createdAt, group.id) < (:afterCreatedAt, :afterId)', {
        afterCreatedAt: after.createdAt,
        afterId: after.id,
      });
    }
    const rows = await query.getMany();
    const page = rows.slice(0, request.limit);
    const members = page.length
      ? await manager.find(GroupMemberEntity, {
          where: { groupId: In(page.map((group) => group.id)) },
          order: { position: 'ASC' },
        })
      : [];
    const last = page.at(-1);
    return {
      items: page.map((group) =>
        toGroupSummaryV1(
          group,
          members.filter((member) => member.groupId === group.id),
        ),
      ),
      ...(rows.length > request.limit && last ? { nextCursor: encodeListCursor(last) } : {}),
    };
  }
}

export function toGroupSummaryV1(group: GroupEntity, members: GroupMemberEntity[]): GroupSummaryV1 {
  return {
    id: group.id,
    goalId: group.goalId,
    goal: group.goal,
    state: group.state,
    members: members.map(toGroupMemberV1),
    lastSeq: group.lastSeq,
    turn: group.turn,
    maxTurns: group.maxTurns,
    createdAt: group.createdAt.toISOString(),
    updatedAt: group.updatedAt.toISOString(),
  };
}
