import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ContractError,
  type CreateGroupV1Request,
  type GroupV1,
  type ListMessagesV1Request,
  type ListMessagesV1Response,
} from '@ioa/contracts';
import { openConversation } from '../moves/conversation-state-machine.js';
import { GroupMemberEntity } from './group-member.entity.js';
import type { GroupEntity } from './group.entity.js';
import { toChatMessageV1, toGroupV1 } from './group.mapper.js';
import { GroupsRepository } from './groups.repository.js';
import { TransitionWriter } from './transition.writer.js';

@Injectable()
export class GroupsService {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly writer: TransitionWriter,
  ) {}

  /**
   * Opens the group of a goal: discussing, turn 1, the leader speaks first (a `TurnGrantedV1` goes out). One group
   * per goal: a retried request (the scheduler re-running after a crash) gets the existing group back unchanged.
   */
  async create(request: CreateGroupV1Request): Promise<GroupV1> {
    const ids = request.members.map((member) => member.agentId);
    const duplicates = ids.filter((id, index) => ids.indexOf(id) !== index);
    if (duplicates.length > 0) {
      throw new ContractError(
        'VALIDATION_FAILED',
        `Each agent may be a member once; repeated: ${duplicates.join(', ')}`,
        [{ property: 'members', constraints: ['members must have distinct agentId values'] }],
      );
    }
    if (!ids.includes(request.leaderId)) {
      throw new ContractError('VALIDATION_FAILED', `The leader ${request.leaderId} must be one of the members`, [
        { property: 'leaderId', constraints: ['leaderId must be the agentId of a member'] },
      ]);
    }
    const now = new Date();
    const members = request.members.map((member, position) =>
      Object.assign(new GroupMemberEntity(), {
        groupId: '',
        agentId: member.agentId,
        name: member.name,
        reason: member.reason ?? null,
        position,
      } satisfies GroupMemberEntity),
    );
    const opening = openConversation(
      {
        goal: request.goal,
        leaderId: request.leaderId,
        members: members.map(({ agentId, name, reason }) => ({ agentId, name, reason })),
        maxTurns: request.maxTurns,
        turnTimeoutSeconds: request.turnTimeoutSeconds,
      },
      now,
    );
    const { record } = await this.groups.transaction(async (transaction) => {
      const group: GroupEntity = {
        id: randomUUID(),
        goalId: request.goalId,
        goal: request.goal,
        leaderId: request.leaderId,
        ...opening.fields,
        originalMaxTurns: request.maxTurns,
        turnTimeoutSeconds: request.turnTimeoutSeconds,
        lastSeq: 0,
        version: 0,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await transaction.insertGroupIfGoalFree(group))) {
        const existing = (await transaction.findByGoal(request.goalId))!;
        return { record: await transaction.record(existing) };
      }
      for (const member of members) member.groupId = group.id;
      await transaction.insertMembers(members);
      const written = await this.writer.write(
        transaction,
        { group, members, tasks: [] },
        {
          outcome: 'transition',
          fields: opening.fields,
          messages: [opening.message],
          ledger: [],
          assignment: null,
          grant: opening.grant,
          stateChange: null,
        },
        now,
      );
      return { record: written.record };
    });
    return toGroupV1(record);
  }

  async get(groupId: string): Promise<GroupV1> {
    const record = await this.groups.findRecord(groupId);
    if (!record) throw ContractError.notFound('Group', groupId);
    return toGroupV1(record);
  }

  /**
   * Refuses an agent that is not a member of the group. A group that does not exist is refused the same way, so the
   * answer tells an outsider nothing about which groups exist.
   */
  async assertMember(groupId: string, agentId: string): Promise<void> {
    if (!(await this.groups.isMember(groupId, agentId))) {
      throw new ContractError('FORBIDDEN', `Agent ${agentId} is not a member of group ${groupId}`, { groupId });
    }
  }

  async listMessages(request: ListMessagesV1Request): Promise<ListMessagesV1Response> {
    const lastSeq = await this.groups.lastSeq(request.groupId);
    if (lastSeq === null) throw ContractError.notFound('Group', request.groupId);
    const messages = await this.groups.listMessages(request.groupId, request.afterSeq, request.limit);
    return { items: messages.map(toChatMessageV1), lastSeq };
  }
}
