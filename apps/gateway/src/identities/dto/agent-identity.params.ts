import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class AgentIdentityParamsDto {
  @ApiProperty({ format: 'uuid', description: 'The agent id the identity was issued for.' })
  @IsUUID('all', { message: 'agentId must be a UUID' })
  agentId: string;
}
