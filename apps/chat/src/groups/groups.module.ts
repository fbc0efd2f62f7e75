import { Module } from '@nestjs/common';
import { GroupsController } from './groups.controller.js';
import { GroupsRepository } from './groups.repository.js';
import { GroupsService } from './groups.service.js';
import { TransitionWriter } from './transition.writer.js';

/** Groups, their members, messages and task ledger: storage, opening a group, and reading it. */
@Module({
  controllers: [GroupsController],
  providers: [GroupsRepository, GroupsService, TransitionWriter],
  exports: [GroupsRepository, TransitionWriter],
})
export class GroupsModule {}
