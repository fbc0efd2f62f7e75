import { Module } from '@nestjs/common';
import { GroupListController } from './group-list.controller.js';
import { GroupListService } from './group-list.service.js';
import { GroupsController } from './groups.controller.js';
import { MemberGroupsController } from './member-groups.controller.js';
import { GroupsRepository } from './groups.repository.js';
import { GroupsService } from './groups.service.js';
import { TransitionWriter } from './transition.writer.js';

/** Groups, their members, messages and task ledger: storage, opening a group, and reading it. */
@Module({
  controllers: [GroupsController, GroupListController, MemberGroupsController],
  providers: [GroupsRepository, GroupsService, GroupListService, TransitionWriter],
  exports: [GroupsRepository, TransitionWriter],
})
export class GroupsModule {}
