import { Controller } from '@nestjs/common';
import { Ctx, NatsContext, Payload } from '@nestjs/microservices';
import {
  CancelGoalV1,
  CancelGoalV1Request,
  GetGoalV1,
  GoalRefV1Request,
  ListGoalEventsV1,
  ListGoalEventsV1Request,
  PostGoalMessageV1,
  PostGoalMessageV1Request,
  SubmitGoalV1,
  SubmitGoalV1Request,
  type GoalV1,
  type ListGoalEventsV1Response,
} from '@ioa/contracts';
import { HandleRequest, idempotencyKeyOf, principalOf } from '@ioa/messaging';
import { GoalsService } from './goals.service.js';

@Controller()
export class GoalsController {
  constructor(private readonly goals: GoalsService) {}

  @HandleRequest(SubmitGoalV1)
  onSubmitGoal(@Payload() request: SubmitGoalV1Request, @Ctx() context: NatsContext): Promise<GoalV1> {
    return this.goals.submit(request, idempotencyKeyOf(context), principalOf(context));
  }

  // Every goal request is scoped by `Ioa-Principal`: another account's goal is NOT_FOUND (see `GoalsService`).
  @HandleRequest(GetGoalV1)
  onGetGoal(@Payload() request: GoalRefV1Request, @Ctx() context: NatsContext): Promise<GoalV1> {
    return this.goals.get(request.goalId, principalOf(context));
  }

  @HandleRequest(CancelGoalV1)
  onCancelGoal(@Payload() request: CancelGoalV1Request, @Ctx() context: NatsContext): Promise<GoalV1> {
    return this.goals.cancel(request, principalOf(context));
  }

  @HandleRequest(PostGoalMessageV1)
  onPostGoalMessage(@Payload() request: PostGoalMessageV1Request, @Ctx() context: NatsContext): Promise<GoalV1> {
    return this.goals.postMessage(request, principalOf(context));
  }

  @HandleRequest(ListGoalEventsV1)
  onListGoalEvents(
    @Payload() request: ListGoalEventsV1Request,
    @Ctx() context: NatsContext,
  ): Promise<ListGoalEventsV1Response> {
    return this.goals.listEvents(request, principalOf(context));
  }
}
