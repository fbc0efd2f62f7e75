import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsUUID } from 'class-validator';
import { GROUP_STATES, type GroupState } from '@ioa/contracts';
import { ListPageQueryDto } from '../../goals/dto/list-page.query.js';
import { toList } from '../../goals/dto/query-values.js';

/** `GET /v1/groups`: the filters and page of `ListGroupsV1Request`. */
export class ListGroupsQueryDto extends ListPageQueryDto {
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
}
