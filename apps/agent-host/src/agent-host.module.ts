import { Module } from '@nestjs/common';
import { AgentHostHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { HealthModule, MessagingModule } from '@ioa/messaging';

@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService('agent-host'),
    HealthModule.forService(AgentHostHealthV1),
  ],
})
export class AgentHostModule {}
