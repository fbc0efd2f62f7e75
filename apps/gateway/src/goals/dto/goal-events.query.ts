import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Min } from 'class-validator';
import { toBoolean } from './query-values.js';

/** `GET /v1/goals/:id/events`. */
export class GoalEventsQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description:
      'Resume after this event id, for clients that cannot set the `Last-Event-ID` header. The header wins when ' +
      'both are present (a reconnecting EventSource sends the header while the URL keeps its first `after`).',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'after must be an integer' })
  @Min(0, { message: 'after must not be less than 0' })
  after?: number;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'false: the stream ends once the goal has ended (completed, failed, canceled). true: it stays open, so a ' +
      'follow-up that re-opens the goal is seen too.',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'follow must be true or false' })
  follow?: boolean;
}
