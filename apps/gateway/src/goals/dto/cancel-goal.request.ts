import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsText } from '@ioa/contracts';

/** `POST /v1/goals/:id/cancel`; the body is optional. */
export class CancelGoalRequestDto {
  @ApiPropertyOptional({ maxLength: 2000, default: 'Canceled by the user', description: 'Recorded as statusReason.' })
  @IsOptional()
  @IsText(2000)
  reason?: string;
}
