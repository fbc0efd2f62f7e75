import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { GROUP_STATES, LIST_PAGE_DEFAULT, LIST_PAGE_MAX, type GroupState } from '@ioa/contracts';
import { toList } from '../../goals/dto/query-values.js';

/** `GET /v1/groups`: the filters and page of `ListGroupsV1Request`. */
export class ListGroupsQueryDto {
  @ApiPropertyOptional({
    type: [String],
    enum: GROUP_STATES,
    description: 'Only groups in these states: repeat the parameter or separate with commas (`discussing,paused`).',
  })
  @IsOptional()
  @Transform(toList)
  @IsArray()
  @ArrayMaxSize(GROUP_STATES.length)
  @IsIn(GROUP_STATES, { each: true, message: `state must be one of ${GROUP_STATES.join(', ')}` })
  state?: GroupState[];

  @ApiPropertyOptional({ format: 'uuid', description: 'Only the group of this goal.' })
  @IsOptional()
  @IsUUID()
  goalId?: string;

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
