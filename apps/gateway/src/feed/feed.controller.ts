import { Controller, Headers, type MessageEvent, Query, Sse, SseSignal } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Observable } from 'rxjs';
import type { RequestOptions } from '@ioa/messaging';
import { HttpErrorDto } from '../http/http-error.dto.js';
import { TraceContext } from '../http/trace.decorator.js';
import { LAST_EVENT_ID_HEADER } from '../goals/resume-position.js';
import { FeedQueryDto } from './dto/feed.query.js';
import { FEED_EVENT_TYPES } from './feed-event.js';
import { parseFeedPosition } from './feed-position.js';
import { NetworkFeed } from './network-feed.js';

@ApiTags('feed')
@Controller({ path: 'feed', version: '1' })
export class FeedController {
  constructor(private readonly feed: NetworkFeed) {}

  @Sse()
  @ApiOperation({
    summary: 'The network, live (Server-Sent Events)',
    description:
      `Agents registering, changing, coming online, going offline and leaving, and goals being submitted, changing ` +
      `status and ending, as they happen: \`event\` is one of ${FEED_EVENT_TYPES.join(', ')}; \`data\` is ` +
      '`{type, subject, at, payload}` with the contract event as published. The first event, `ready`, names where ' +
      "the feed starts. Every `id` is a position in the platform's event streams: resume with `Last-Event-ID` (or " +
      '`?after=`) and nothing is lost or repeated. Without one the feed starts now. A member sees its own goals.',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id.' })
  @ApiOkResponse({ description: 'An event stream.' })
  @ApiBadRequestResponse({ type: HttpErrorDto, description: 'The resume id is not an id of this feed.' })
  @ApiServiceUnavailableResponse({ type: HttpErrorDto, description: 'The broker did not answer.' })
  open(
    @Query() query: FeedQueryDto,
    @Headers(LAST_EVENT_ID_HEADER) lastEventId: string | undefined,
    @SseSignal() signal: AbortSignal,
    @TraceContext() trace: RequestOptions,
  ): Promise<Observable<MessageEvent>> {
    // The header wins over `?after=`: a reconnecting EventSource sends it while its URL keeps the first `after`.
    const resumeFrom = lastEventId?.trim() || query.after;
    return this.feed.open({ after: resumeFrom ? parseFeedPosition(resumeFrom) : undefined, signal, trace });
  }
}
