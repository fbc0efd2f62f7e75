import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { PlatformHealthService } from './platform-health.service.js';

/** `GET /health`: the gateway's view of the whole platform, gathered over each service's health subject. */
@Module({
  controllers: [HealthController],
  providers: [PlatformHealthService],
})
export class PlatformHealthModule {}
