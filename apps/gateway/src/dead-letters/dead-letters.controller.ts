import { Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { RequestOptions } from '@ioa/messaging';
import { AdminOnly } from '../auth/access.decorators.js';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import {
  DeadLetterIdParamsDto,
  DeadLetterListDto,
  DeadLetterReplayDto,
  ListDeadLettersQueryDto,
} from './dead-letters.dto.js';
import { DeadLettersService } from './dead-letters.service.js';

// Dead letters are any account's events: only platform administrators list or replay them.
@ApiTags('operations')
@AdminOnly()
@ApiBadRequestResponse({ type: HttpErrorDto, description: 'Invalid parameters; `details` names each invalid field.' })
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'No service answered in time.' })
@Controller({ path: 'dead-letters', version: '1' })
export class DeadLettersController {
  constructor(private readonly deadLetters: DeadLettersService) {}

  @Get()
  @ApiOperation({
    summary: 'Events the services’ consumers gave up on',
    description:
      'A stream event whose handler kept failing (after every retry) or whose payload failed validation, with the ' +
      'error, the consumer and the original subject. Oldest first; page with `afterId` (the last id seen) and `limit`. ' +
      'Services that did not answer are listed in `unavailable`.',
  })
  @ApiOkResponse({ type: DeadLetterListDto })
  list(@Query() query: ListDeadLettersQueryDto, @TraceContext() trace: RequestOptions): Promise<DeadLetterListDto> {
    return this.deadLetters.list(query, trace);
  }

  @Post(':id/replay')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Publish a dead letter again on its original subject',
    description:
      'For use once the cause is fixed: the original body is published again under a new message id, so every ' +
      'consumer of that subject receives it (handlers are idempotent), and the dead letter is removed.',
  })
  @ApiOkResponse({ type: DeadLetterReplayDto })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No dead letter has this id (or it was replayed already).' })
  replay(@Param() params: DeadLetterIdParamsDto, @TraceContext() trace: RequestOptions): Promise<DeadLetterReplayDto> {
    return this.deadLetters.replay(params.id, trace);
  }
}
