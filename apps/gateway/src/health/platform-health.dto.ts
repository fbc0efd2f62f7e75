import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export type Reachability = 'up' | 'down';

export class ConsumerHealthDto {
  @ApiProperty({ description: 'Durable JetStream consumer name (one per service and subject).' })
  name: string;

  @ApiProperty({ description: 'The one subject it consumes.' })
  subject: string;

  @ApiProperty({ type: 'integer', description: 'Events in the stream not yet delivered to it.' })
  pending: number;

  @ApiProperty({ type: 'integer', description: 'Events delivered and not yet acknowledged (retries included).' })
  ackPending: number;

  @ApiProperty({ type: 'integer' })
  maxAckPending: number;

  @ApiProperty({ type: 'integer', description: 'Events delivered more than once and not yet acknowledged.' })
  redelivered: number;

  @ApiProperty({ type: 'integer', description: 'Events it gave up on (see `GET /v1/dead-letters`).' })
  deadLetters: number;

  @ApiProperty({
    description:
      'Events wait and none moves: ack-pending at its limit, one handler running for the stuck threshold, or ' +
      'events pending and none delivered for that long (`EVENT_STUCK_AFTER_MS`, 60 s by default).',
  })
  stuck: boolean;

  @ApiPropertyOptional()
  stuckReason?: string;
}

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

  @ApiPropertyOptional({
    type: ConsumerHealthDto,
    isArray: true,
    description: "The service's JetStream consumers (services that consume streams).",
  })
  consumers?: ConsumerHealthDto[];
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

  @ApiProperty({ type: ServiceHealthDto, description: 'Speaks for agents reached over A2A, MCP, OpenAI or webhooks.' })
  adapters: ServiceHealthDto;
}

export type ServiceName = keyof ServicesHealthDto;

export class PlatformHealthDto {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description:
      '`ok` (HTTP 200) when NATS is up, the registry and discovery answer with their database up, and no ' +
      "service's stream consumer is stuck.",
  })
  status: 'ok' | 'degraded';

  @ApiProperty({
    description:
      'Whether the API can serve (NATS up, the registry and discovery answering with their database up): what ' +
      '`GET /health/ready` answers with 200 or 503. A stuck consumer degrades `status` but not this.',
  })
  ready: boolean;

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
