import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class GroupIdParamsDto {
  @ApiProperty({ format: 'uuid', description: "The group's id (a goal's `groupId`)." })
  @IsUUID('all', { message: 'id must be a UUID' })
  id: string;
}
