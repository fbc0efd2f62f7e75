import { Module } from '@nestjs/common';
import { ChatHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { HealthModule, MessagingModule } from '@ioa/messaging';

@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService('chat'),
    HealthModule.forService(ChatHealthV1),
  ],
})
export class ChatModule {}
