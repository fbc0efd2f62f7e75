import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export type Reachability = 'up' | 'down';

export class ServiceHealthDto {
  @ApiProperty({
    enum: ['up', 'degraded', 'down'],
    description: '`down`: no answer within the health timeout. `degraded`: it answered but reports a problem.',
  })
  status: 'up' | 'degraded' | 'down';

  @ApiPropertyOptional({ enum: ['up', 'down'], description: 'Only for services that own a database.' })
  database?: Reachability;

  @ApiPropertyOptional({ type: 'integer' })
  uptimeSeconds?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'How long the health answer took.' })
  latencyMs?: number;

  @ApiPropertyOptional({ description: 'Why the service counts as down.' })
  reason?: string;
}

export class ServicesHealthDto {
  @ApiProperty({ type: ServiceHealthDto })
  registry: ServiceHealthDto;

  @ApiProperty({ type: ServiceHealthDto })
  discovery: ServiceHealthDto;

  @ApiProperty({ type: ServiceHealthDto })
  chat: ServiceHealthDto;

  @ApiProperty({ type: ServiceHealthDto })
  scheduler: ServiceHealthDto;

  @ApiProperty({ type: ServiceHealthDto })
  'agent-host': ServiceHealthDto;
}

export type ServiceName = keyof ServicesHealthDto;

export class PlatformHealthDto {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description: '`ok` (HTTP 200) when NATS is up and the registry and discovery answer with their database up.',
  })
  status: 'ok' | 'degraded';

  @ApiProperty({ enum: ['up', 'down'] })
  nats: Reachability;

  @ApiProperty({
    enum: ['up', 'down', 'unknown'],
    description: 'As the services that own tables report it; `unknown` when none of them answered.',
  })
  database: Reachability | 'unknown';

  @ApiProperty({ type: ServicesHealthDto })
  services: ServicesHealthDto;
}
