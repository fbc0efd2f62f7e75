import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { GOAL_STATUSES, LIST_PAGE_DEFAULT, LIST_PAGE_MAX, type GoalStatus } from '@ioa/contracts';
import { toBoolean, toList } from './query-values.js';

/** `GET /v1/goals`: the filters and page of `ListGoalsV1Request`. */
export class ListGoalsQueryDto {
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

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page, unchanged.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: LIST_PAGE_MAX, default: LIST_PAGE_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(LIST_PAGE_MAX)
  limit?: number;
}
