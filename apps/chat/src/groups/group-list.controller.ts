import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ListGroupsV1, ListGroupsV1Request, type ListGroupsV1Response } from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { GroupListService } from './group-list.service.js';

@Controller()
export class GroupListController {
  constructor(private readonly groups: GroupListService) {}

  @HandleRequest(ListGroupsV1)
  onListGroups(@Payload() request: ListGroupsV1Request): Promise<ListGroupsV1Response> {
    return this.groups.list(request);
  }
}
