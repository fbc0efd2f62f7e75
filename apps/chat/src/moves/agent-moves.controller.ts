import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ProposeMoveV1Request, ProposeOwnMoveV1, type ProposeMoveV1Response } from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { ConversationService } from './conversation.service.js';

/**
 * An agent proposes its move on `ioa.agent.<its id>.move.propose.v1`: the messaging layer has made `speakerId` the
 * subject's agent (or refused a payload naming another), and the conversation's rules then accept it only from the
 * turn holder of that group.
 */
@Controller()
export class AgentMovesController {
  constructor(private readonly conversation: ConversationService) {}

  @HandleRequest(ProposeOwnMoveV1)
  onProposeMove(@Payload() request: ProposeMoveV1Request): Promise<ProposeMoveV1Response> {
    return this.conversation.propose(request);
  }
}
