import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  HttpStatus,
  type MessageEvent,
  Param,
  Post,
  Query,
  Res,
  Sse,
  SseSignal,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { EMPTY, type Observable } from 'rxjs';
import { GoalEventV1, GoalV1, HEADER_IDEMPOTENCY_KEY } from '@ioa/contracts';
import type { RequestOptions } from '@ioa/messaging';
import { contractResponseSchema } from '../http/contract-response-schema.js';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { CancelGoalRequestDto } from './dto/cancel-goal.request.js';
import { GoalEventsQueryDto } from './dto/goal-events.query.js';
import { GoalIdParamsDto } from './dto/goal-id.params.js';
import { PostGoalMessageRequestDto } from './dto/post-goal-message.request.js';
import { SubmitGoalRequestDto } from './dto/submit-goal.request.js';
import { SubmittedGoalResponseDto } from './dto/submitted-goal.response.js';
import { GoalEventStreams } from './goal-event-streams.js';
import { GoalsService } from './goals.service.js';
import { IdempotencyKey } from './idempotency-key.decorator.js';
import { LAST_EVENT_ID_HEADER, resumePosition } from './resume-position.js';

/** The parts of Express's response this controller uses (without depending on Express's types). */
interface ResponseControls {
  status(code: number): unknown;
  setHeader(name: string, value: string): unknown;
}

const GOAL_SCHEMA = contractResponseSchema(GoalV1);

@ApiTags('goals')
@ApiBadRequestResponse({ type: HttpErrorDto, description: 'Invalid parameters; `details` names each invalid field.' })
@ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The scheduler did not answer in time.' })
@Controller({ path: 'goals', version: '1' })
export class GoalsController {
  constructor(
    private readonly goals: GoalsService,
    private readonly streams: GoalEventStreams,
  ) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: 'Submit a goal',
    description:
      'The goal is stored and answered at once; a team forms (or the named `members` are used) and works on it ' +
      'asynchronously. Follow it with `GET /v1/goals/{id}` or the event stream `GET /v1/goals/{id}/events`.',
  })
  @ApiHeader({
    name: HEADER_IDEMPOTENCY_KEY,
    required: false,
    description: "Forwarded to the scheduler as the request's idempotency key, for safe retries of a lost response.",
  })
  @ApiAcceptedResponse({ type: SubmittedGoalResponseDto, description: 'Accepted; `Location` names the goal.' })
  async submit(
    @Body() body: SubmitGoalRequestDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @TraceContext() trace: RequestOptions,
    @Res({ passthrough: true }) response: ResponseControls,
  ): Promise<SubmittedGoalResponseDto> {
    const goal = await this.goals.submit(body, { ...trace, idempotencyKey });
    response.setHeader('Location', `/v1/goals/${goal.id}`);
    return { id: goal.id, status: goal.status };
  }

  @Get(':id')
  @ApiOperation({
    summary: 'A goal: status, team, group, tasks, conclusion and usage',
    description: '`statusReason` says why a goal failed or was concluded early (budget, turn limit, cancel).',
  })
  @ApiOkResponse({ schema: GOAL_SCHEMA, description: 'The goal, as the scheduler holds it.' })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No goal has this id.' })
  get(@Param() params: GoalIdParamsDto, @TraceContext() trace: RequestOptions): Promise<GoalV1> {
    return this.goals.get(params.id, trace);
  }

  /*
   * Nest's `@Sse` rather than writing to Express's response by hand: in Nest 12 an async `@Sse` handler runs to
   * completion before any header is sent, so a missing goal or a silent scheduler still goes through the exception
   * filter as a plain 404 / 503; `@SseSignal()` ties the tail subscription to the response's lifetime (client gone,
   * stream complete, or setup failed); and Nest handles back-pressure, dropping a client that stops reading. Resuming
   * needs nothing from the framework: the `Last-Event-ID` header is read like any other, and every event's `id` is
   * its log `seq`.
   */
  @Sse(':id/events')
  @ApiOperation({
    summary: "Stream a goal's events (Server-Sent Events)",
    description:
      'Every status, team, message, task and group change of the goal, in order, each exactly once: `id` is the ' +
      "event's seq in the goal's log, `event` its type, `data` the event as JSON (`{goalId, seq, type, data, at}`). " +
      'Resume with `Last-Event-ID` (or `?after=`). Comment lines every ~15 s keep idle connections open. The ' +
      'stream ends after the goal has ended (completed, failed, canceled) unless `follow=true`.',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id.' })
  @ApiOkResponse({
    schema: contractResponseSchema(GoalEventV1, { description: 'The `data` of each event.' }),
    description: 'An event stream.',
  })
  @ApiNoContentResponse({
    description: 'The goal has ended and the client already has every event: nothing to stream (stops EventSource).',
  })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No goal has this id.' })
  async events(
    @Param() params: GoalIdParamsDto,
    @Query() query: GoalEventsQueryDto,
    @Headers(LAST_EVENT_ID_HEADER) lastEventId: string | undefined,
    @SseSignal() signal: AbortSignal,
    @TraceContext() trace: RequestOptions,
    @Res({ passthrough: true }) response: ResponseControls,
  ): Promise<Observable<MessageEvent>> {
    const stream = await this.streams.open({
      goalId: params.id,
      afterSeq: resumePosition(lastEventId, query.after),
      follow: query.follow ?? false,
      signal,
      trace,
    });
    if (stream) return stream;
    response.status(HttpStatus.NO_CONTENT);
    return EMPTY;
  }

  @Post(':id/messages')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    summary: "Join the goal's conversation",
    description:
      'A follow-up or the answer to a question the team asked. A completed goal re-opens (`working` again) and its ' +
      'team continues from where it concluded.',
  })
  @ApiAcceptedResponse({ schema: GOAL_SCHEMA, description: 'Posted; the goal as it is now.' })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No goal has this id.' })
  @ApiConflictResponse({
    type: HttpErrorDto,
    description: 'The goal cannot take a message now (still forming its team, failed or canceled).',
  })
  postMessage(
    @Param() params: GoalIdParamsDto,
    @Body() body: PostGoalMessageRequestDto,
    @TraceContext() trace: RequestOptions,
  ): Promise<GoalV1> {
    return this.goals.postMessage(params.id, body, trace);
  }

  @Post(':id/cancel')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Cancel a goal',
    description: 'Its group closes and its open tasks and sub-goals are canceled. Canceling twice changes nothing.',
  })
  @ApiBody({ type: CancelGoalRequestDto, required: false })
  @ApiOkResponse({ schema: GOAL_SCHEMA, description: 'The canceled goal.' })
  @ApiNotFoundResponse({ type: HttpErrorDto, description: 'No goal has this id.' })
  @ApiConflictResponse({ type: HttpErrorDto, description: 'The goal has already completed or failed.' })
  cancel(
    @Param() params: GoalIdParamsDto,
    @Body() body: CancelGoalRequestDto,
    @TraceContext() trace: RequestOptions,
  ): Promise<GoalV1> {
    return this.goals.cancel(params.id, body, trace);
  }
}
