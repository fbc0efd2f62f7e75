import { Controller } from '@nestjs/common';
import { Ctx, NatsContext, Payload } from '@nestjs/microservices';
import {
  GetGroupV1Request,
  GetOwnGroupV1,
  ListMessagesV1Request,
  ListOwnGroupMessagesV1,
  type GroupV1,
  type ListMessagesV1Response,
} from '@ioa/contracts';
import { actingAgentOf, HandleRequest } from '@ioa/messaging';
import { GroupsService } from './groups.service.js';

/**
 * An agent reads the groups it is a member of, on `ioa.agent.<its id>.…` (only that agent may publish there): the
 * same answers as chat's own subjects, which only the platform's services may ask.
 */
@Controller()
export class MemberGroupsController {
  constructor(private readonly groups: GroupsService) {}

  @HandleRequest(GetOwnGroupV1)
  async onGetGroup(@Payload() request: GetGroupV1Request, @Ctx() context: NatsContext): Promise<GroupV1> {
    await this.groups.assertMember(request.groupId, actingAgentOf(GetOwnGroupV1, context.getSubject()));
    return this.groups.get(request.groupId);
  }

  @HandleRequest(ListOwnGroupMessagesV1)
  async onListMessages(
    @Payload() request: ListMessagesV1Request,
    @Ctx() context: NatsContext,
  ): Promise<ListMessagesV1Response> {
    await this.groups.assertMember(request.groupId, actingAgentOf(ListOwnGroupMessagesV1, context.getSubject()));
    return this.groups.listMessages(request);
  }
}
