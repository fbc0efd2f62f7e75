import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { LIST_PAGE_DEFAULT, LIST_PAGE_MAX } from '@ioa/contracts';

/** The page of a newest-first list route (`GET /v1/goals`, `GET /v1/groups`): the bounds of `ListPageV1Request`. */
export class ListPageQueryDto {
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
