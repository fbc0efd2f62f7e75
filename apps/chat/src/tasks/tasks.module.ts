import { Module } from '@nestjs/common';
import { MovesModule } from '../moves/moves.module.js';
import { TaskUpdatesConsumer } from './task-updates.consumer.js';

/** The scheduler's side of the ledger: task progress and results flowing into the groups. */
@Module({
  imports: [MovesModule],
  providers: [TaskUpdatesConsumer],
})
export class TasksModule {}
