import { Controller } from '@nestjs/common';
import { Ctx, NatsContext, Payload } from '@nestjs/microservices';
import { ListGoalsV1, ListGoalsV1Request, type ListGoalsV1Response } from '@ioa/contracts';
import { HandleRequest, principalOf } from '@ioa/messaging';
import { GoalListService, goalListScopeOf } from './goal-list.service.js';

@Controller()
export class GoalListController {
  constructor(private readonly goals: GoalListService) {}

  @HandleRequest(ListGoalsV1)
  onListGoals(@Payload() request: ListGoalsV1Request, @Ctx() context: NatsContext): Promise<ListGoalsV1Response> {
    return this.goals.list(request, goalListScopeOf(principalOf(context)));
  }
}
