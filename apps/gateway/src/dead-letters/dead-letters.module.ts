import { Module } from '@nestjs/common';
import { DeadLettersController } from './dead-letters.controller.js';
import { DeadLettersService } from './dead-letters.service.js';

/** `/v1/dead-letters`: list and replay what the services' stream consumers gave up on. */
@Module({
  controllers: [DeadLettersController],
  providers: [DeadLettersService],
})
export class DeadLettersModule {}
