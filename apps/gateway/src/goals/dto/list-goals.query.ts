import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsUUID } from 'class-validator';
import { GOAL_STATUSES, type GoalStatus } from '@ioa/contracts';
import { ListPageQueryDto } from './list-page.query.js';
import { toBoolean, toList } from './query-values.js';

/** `GET /v1/goals`: the filters and page of `ListGoalsV1Request`. */
export class ListGoalsQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({
    type: [String],
    enum: GOAL_STATUSES,
    description:
      'Only goals in these statuses: repeat the parameter or separate with commas (`working,input_required`).',
  })
  @IsOptional()
  @Transform(toList)
  @IsArray()
  @ArrayMaxSize(GOAL_STATUSES.length)
  @IsIn(GOAL_STATUSES, { each: true, message: `status must be one of ${GOAL_STATUSES.join(', ')}` })
  status?: GoalStatus[];

  @ApiPropertyOptional({ format: 'uuid', description: 'Only the sub-goals of this goal.' })
  @IsOptional()
  @IsUUID()
  parentGoalId?: string;

  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Only goals that are not sub-goals.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'topLevelOnly must be true or false' })
  topLevelOnly?: boolean;
}
