import { Module } from '@nestjs/common';
import { GroupsModule } from '../groups/groups.module.js';
import { ConversationService } from './conversation.service.js';
import { MovesController } from './moves.controller.js';
import { AgentMovesController } from './agent-moves.controller.js';
import { TurnTimeoutSweeper } from './turn-timeout.sweeper.js';

/** The conversation: members' moves, a person's messages, forced ends, and turn time-outs. */
@Module({
  imports: [GroupsModule],
  controllers: [MovesController, AgentMovesController],
  providers: [ConversationService, TurnTimeoutSweeper],
  exports: [ConversationService],
})
export class MovesModule {}
