import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { ChatHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule, OutboxEventEntity, OutboxModule } from '@ioa/database';
import { HealthModule, MessagingModule } from '@ioa/messaging';
import { chatConfig, type ChatConfig } from './chat.config.js';
import { GroupMemberEntity } from './groups/group-member.entity.js';
import { GroupTaskEntity } from './groups/group-task.entity.js';
import { GroupEntity } from './groups/group.entity.js';
import { GroupsModule } from './groups/groups.module.js';
import { MessageEntity } from './groups/message.entity.js';
import { CreateChat1795400000000 } from './migrations/1795400000000-create-chat.js';
import { AddGroupListIndex1795400100000 } from './migrations/1795400100000-add-group-list-index.js';
import { MovesModule } from './moves/moves.module.js';
import { TasksModule } from './tasks/tasks.module.js';

/**
 * The group chat: the single authority over each group's conversation state (schema `chat`). Members propose
 * moves, the state machine validates and applies them, the scheduler's task reports feed the ledger.
 */
@Module({
  imports: [
    PlatformConfigModule.forService([chatConfig]),
    MessagingModule.forService('chat'),
    DatabaseModule.forService({
      schema: 'chat',
      entities: [GroupEntity, GroupMemberEntity, MessageEntity, GroupTaskEntity, OutboxEventEntity],
      migrations: [CreateChat1795400000000, AddGroupListIndex1795400100000],
    }),
    OutboxModule.forServiceAsync({
      inject: [chatConfig.KEY],
      useFactory: (config: ChatConfig) => ({ retryMs: config.outboxRetryMs }),
    }),
    HealthModule.forService(ChatHealthV1),
    ScheduleModule.forRoot(),
    GroupsModule,
    MovesModule,
    TasksModule,
  ],
})
export class ChatModule {}
