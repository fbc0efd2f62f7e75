import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsText } from '@ioa/contracts';

/** `POST /v1/goals/:id/messages`: the bounds of `PostGoalMessageV1Request`. */
export class PostGoalMessageRequestDto {
  @ApiProperty({
    maxLength: 20000,
    description: 'A follow-up (re-opens a concluded goal) or the answer to a question the team asked.',
    example: 'Thanks. Now also explain how a task whose owner goes offline is handled.',
  })
  @IsText(20000)
  content: string;

  @ApiPropertyOptional({ maxLength: 100, default: 'user', description: 'Name shown as the sender in the chat.' })
  @IsOptional()
  @IsText(100)
  author?: string;
}
