import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CreateGroupV1,
  CreateGroupV1Request,
  GetGroupV1,
  GetGroupV1Request,
  ListMessagesV1,
  ListMessagesV1Request,
  type GroupV1,
  type ListMessagesV1Response,
} from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { GroupsService } from './groups.service.js';

/**
 * Opening groups and reading them. Request classes are value imports on purpose: the validation pipe reads them
 * from the parameter's design type.
 */
@Controller()
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @HandleRequest(CreateGroupV1)
  onCreateGroup(@Payload() request: CreateGroupV1Request): Promise<GroupV1> {
    return this.groups.create(request);
  }

  @HandleRequest(GetGroupV1)
  onGetGroup(@Payload() request: GetGroupV1Request): Promise<GroupV1> {
    return this.groups.get(request.groupId);
  }

  @HandleRequest(ListMessagesV1)
  onListMessages(@Payload() request: ListMessagesV1Request): Promise<ListMessagesV1Response> {
    return this.groups.listMessages(request);
  }
}
