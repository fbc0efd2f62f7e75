import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class GoalIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'The id the scheduler gave the goal.' })
  @IsUUID('all', { message: 'id must be a UUID' })
  id: string;
}
