import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';

/** `GET /v1/feed`. */
export class FeedQueryDto {
  @ApiPropertyOptional({
    example: '12.340',
    description: 'Resume after this event id, for clients that cannot set `Last-Event-ID` (the header wins).',
  })
  @IsOptional()
  @Matches(/^\d{1,15}\.\d{1,15}$/, { message: 'after must be the id of an event of this feed (<number>.<number>)' })
  after?: string;
}
