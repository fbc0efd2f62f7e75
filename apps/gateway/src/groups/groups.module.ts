import { Module } from '@nestjs/common';
import { GroupListController } from './group-list.controller.js';
import { GroupsController } from './groups.controller.js';
import { GroupsService } from './groups.service.js';

/** `/v1/groups`. Needs only the global `ContractClient` (from `MessagingModule`). */
@Module({
  controllers: [GroupsController, GroupListController],
  providers: [GroupsService],
})
export class GroupsModule {}
