import { Injectable } from '@nestjs/common';
import {
  CancelGoalV1,
  CancelGoalV1Request,
  GetGoalV1,
  GoalBudgetV1,
  PostGoalMessageV1,
  PostGoalMessageV1Request,
  SubmitGoalV1,
  SubmitGoalV1Request,
  type GoalV1,
} from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import type { CancelGoalRequestDto } from './dto/cancel-goal.request.js';
import type { PostGoalMessageRequestDto } from './dto/post-goal-message.request.js';
import type { SubmitGoalRequestDto } from './dto/submit-goal.request.js';

/** Fills a contract request class (so its declared defaults apply) with the fields the caller actually set. */
function contractRequest<T extends object>(type: new () => T, fields: Partial<T>): T {
  const defined = Object.entries(fields).filter(([, value]) => value !== undefined);
  return Object.assign(new type(), Object.fromEntries(defined));
}

/** Goals over HTTP: every operation is a scheduler request. */
@Injectable()
export class GoalsService {
  constructor(private readonly client: ContractClient) {}

  submit(body: SubmitGoalRequestDto, options: RequestOptions = {}): Promise<GoalV1> {
    const request = contractRequest(SubmitGoalV1Request, {
      goal: body.goal,
      members: body.members,
      maxTurns: body.maxTurns,
      maxDepth: body.maxDepth,
      budget:
        body.budget && contractRequest(GoalBudgetV1, { tokens: body.budget.tokens, seconds: body.budget.seconds }),
    });
    return this.client.request(SubmitGoalV1, request, options);
  }

  get(goalId: string, options: RequestOptions = {}): Promise<GoalV1> {
    return this.client.request(GetGoalV1, { goalId }, options);
  }

  postMessage(goalId: string, body: PostGoalMessageRequestDto, options: RequestOptions = {}): Promise<GoalV1> {
    const request = contractRequest(PostGoalMessageV1Request, { goalId, content: body.content, author: body.author });
    return this.client.request(PostGoalMessageV1, request, options);
  }

  cancel(goalId: string, body: CancelGoalRequestDto | undefined, options: RequestOptions = {}): Promise<GoalV1> {
    const request = contractRequest(CancelGoalV1Request, { goalId, reason: body?.reason });
    return this.client.request(CancelGoalV1, request, options);
  }
}
