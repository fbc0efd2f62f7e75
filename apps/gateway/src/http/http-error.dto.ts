import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode } from '@ioa/contracts';
import type { HttpErrorBody } from './http-error.js';

/** Documents `HttpErrorBody` for OpenAPI: every error the gateway returns has this shape. */
export class HttpErrorDto implements HttpErrorBody {
  @ApiProperty({ type: 'integer', example: 400 })
  statusCode: number;

  @ApiProperty({
    enum: ERROR_CODES,
    description: "The platform's stable error code.",
    example: 'VALIDATION_FAILED',
  })
  error: ErrorCode;

  @ApiProperty({ example: 'Invalid request: limit must not be less than 1' })
  message: string;

  @ApiPropertyOptional({
    description: 'For VALIDATION_FAILED: one entry per invalid field, `{property, constraints}`.',
    example: [{ property: 'limit', constraints: ['limit must not be less than 1'] }],
  })
  details?: unknown;
}
