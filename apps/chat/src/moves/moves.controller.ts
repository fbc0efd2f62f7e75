import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CloseGroupV1,
  EndGroupV1Request,
  ForceConclusionV1,
  PostUserMessageV1,
  PostUserMessageV1Request,
  ProposeMoveV1,
  ProposeMoveV1Request,
  type GroupV1,
  type ProposeMoveV1Response,
} from '@ioa/contracts';
import { HandleRequest } from '@ioa/messaging';
import { ConversationService } from './conversation.service.js';

/**
 * Everything that advances a conversation from outside: members' moves, a person's messages, and the scheduler's
 * forced conclusion and close. Rejections come back as INVALID_STATE / FORBIDDEN with the reason and `details.rule`.
 */
@Controller()
export class MovesController {
  constructor(private readonly conversation: ConversationService) {}

  @HandleRequest(ProposeMoveV1)
  onProposeMove(@Payload() request: ProposeMoveV1Request): Promise<ProposeMoveV1Response> {
    return this.conversation.propose(request);
  }

  @HandleRequest(PostUserMessageV1)
  onPostUserMessage(@Payload() request: PostUserMessageV1Request): Promise<ProposeMoveV1Response> {
    return this.conversation.postUserMessage(request);
  }

  @HandleRequest(ForceConclusionV1)
  onForceConclusion(@Payload() request: EndGroupV1Request): Promise<GroupV1> {
    return this.conversation.forceConclusion(request);
  }

  @HandleRequest(CloseGroupV1)
  onCloseGroup(@Payload() request: EndGroupV1Request): Promise<GroupV1> {
    return this.conversation.close(request);
  }
}
