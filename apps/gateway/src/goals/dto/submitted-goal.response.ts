import { ApiProperty } from '@nestjs/swagger';
import { GOAL_STATUSES, type GoalStatus } from '@ioa/contracts';

/** `202` to `POST /v1/goals`: the goal is stored; the team forms and works asynchronously. */
export class SubmittedGoalResponseDto {
  @ApiProperty({ format: 'uuid', description: 'Follow it at `/v1/goals/{id}` and `/v1/goals/{id}/events`.' })
  id: string;

  @ApiProperty({ enum: GOAL_STATUSES, example: 'submitted' })
  status: GoalStatus;
}
