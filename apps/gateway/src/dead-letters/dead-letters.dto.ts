import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { DEAD_LETTER_CONTRACTS, DEAD_LETTER_REASONS, IsIntegerIn, type DeadLetterReason } from '@ioa/contracts';

/** The services that answer for their consumers' dead letters, as the contract declares them. */
export type DeadLetterService = keyof typeof DEAD_LETTER_CONTRACTS;
export const DEAD_LETTER_SERVICES = Object.keys(DEAD_LETTER_CONTRACTS) as DeadLetterService[];

export class ListDeadLettersQueryDto {
  @ApiPropertyOptional({ enum: DEAD_LETTER_SERVICES, description: 'Only this service’s dead letters.' })
  @IsOptional()
  @IsIn(DEAD_LETTER_SERVICES)
  service?: DeadLetterService;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'Dead letters with a larger id.' })
  @IsOptional()
  @IsIntegerIn(0)
  afterId?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 100 })
  @IsOptional()
  @IsIntegerIn(1, 500)
  limit?: number;
}

export class DeadLetterIdParamsDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The dead letter’s id (from the listing).' })
  @IsIntegerIn(1)
  id: number;
}

export class DeadLetterDto {
  @ApiProperty({ type: 'integer', description: 'Its sequence in the `IOA_DEAD_LETTERS` stream; replay by it.' })
  id: number;

  @ApiProperty({ enum: DEAD_LETTER_SERVICES, description: 'The service whose consumer gave up.' })
  service: string;

  @ApiProperty({ description: 'The durable JetStream consumer that gave up on it.' })
  consumer: string;

  @ApiProperty({ description: 'The subject the event was published on; a replay publishes it there again.' })
  subject: string;

  @ApiProperty({ type: 'integer', description: 'Its sequence in its original stream.' })
  streamSequence: number;

  @ApiProperty({ type: 'integer', description: 'Deliveries before the consumer gave up.' })
  deliveries: number;

  @ApiProperty({
    enum: DEAD_LETTER_REASONS,
    description: '`handler_failed`: the handler threw on every delivery. `invalid_payload`: it failed validation.',
  })
  reason: DeadLetterReason;

  @ApiProperty({ description: 'The last error (at most 1,000 characters).' })
  error: string;

  @ApiProperty({ format: 'date-time' })
  deadLetteredAt: string;

  @ApiProperty({ description: 'The body as text (at most 10,000 characters; a replay sends all of it).' })
  payload: string;

  @ApiProperty()
  payloadTruncated: boolean;

  @ApiProperty({ type: 'integer' })
  payloadBytes: number;
}

export class UnavailableServiceDto {
  @ApiProperty({ enum: DEAD_LETTER_SERVICES })
  service: string;

  @ApiProperty()
  reason: string;
}

export class DeadLetterListDto {
  @ApiProperty({ type: DeadLetterDto, isArray: true, description: 'Oldest first, across the services asked.' })
  items: DeadLetterDto[];

  @ApiProperty({ type: 'integer', description: 'Dead letters in all, across the services that answered.' })
  total: number;

  @ApiProperty({ type: UnavailableServiceDto, isArray: true, description: 'Services that did not answer.' })
  unavailable: UnavailableServiceDto[];
}

export class DeadLetterReplayDto {
  @ApiProperty({ type: 'integer' })
  id: number;

  @ApiProperty({ enum: DEAD_LETTER_SERVICES })
  service: string;

  @ApiProperty({ description: 'Where the original body was published again.' })
  subject: string;

  @ApiProperty({ description: 'The replay’s JetStream message id; a retried replay is de-duplicated by it.' })
  messageId: string;
}
