import { Module } from '@nestjs/common';
import { SchedulerHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { HealthModule, MessagingModule } from '@ioa/messaging';

@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService('scheduler'),
    HealthModule.forService(SchedulerHealthV1),
  ],
})
export class SchedulerModule {}
