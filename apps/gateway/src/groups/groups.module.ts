import { Module } from '@nestjs/common';
import { GroupsController } from './groups.controller.js';
import { GroupsService } from './groups.service.js';

/** `/v1/groups`. Needs only the global `ContractClient` (from `MessagingModule`). */
@Module({
  controllers: [GroupsController],
  providers: [GroupsService],
})
export class GroupsModule {}
