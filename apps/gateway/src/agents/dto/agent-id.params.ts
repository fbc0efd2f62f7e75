import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class AgentIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'The id the registry gave the agent.' })
  @IsUUID('all', { message: 'id must be a UUID' })
  id: string;
}
