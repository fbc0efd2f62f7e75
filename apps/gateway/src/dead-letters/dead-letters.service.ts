import { Injectable } from '@nestjs/common';
import {
  ContractError,
  DEAD_LETTER_CONTRACTS,
  ListDeadLettersV1Request,
  type ListDeadLettersV1Response,
} from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import {
  DEAD_LETTER_SERVICES,
  type DeadLetterListDto,
  type DeadLetterReplayDto,
  type DeadLetterService,
  type ListDeadLettersQueryDto,
} from './dead-letters.dto.js';

function contractsOf(service: DeadLetterService) {
  const contracts = DEAD_LETTER_CONTRACTS[service];
  if (!contracts) throw new Error(`${service} declares no dead-letter subjects`);
  return contracts;
}

function describe(error: unknown): string {
  return error instanceof ContractError ? `${error.code}: ${error.message}` : String(error);
}

/**
 * Dead letters over HTTP. Each service answers for its own consumers, so a listing asks them all (or the one named)
 * and merges by id — ids are sequences of one stream, so they order across services — and a replay goes to every
 * service: only the one that owns the id replays it, the others answer NOT_FOUND.
 */
@Injectable()
export class DeadLettersService {
  constructor(private readonly client: ContractClient) {}

  async list(query: ListDeadLettersQueryDto, trace: RequestOptions = {}): Promise<DeadLetterListDto> {
    const request = Object.assign(new ListDeadLettersV1Request(), {
      ...(query.afterId === undefined ? {} : { afterId: query.afterId }),
      ...(query.limit === undefined ? {} : { limit: query.limit }),
    });
    const services = query.service ? [query.service] : [...DEAD_LETTER_SERVICES];
    const answers = await Promise.allSettled(
      services.map((service) => this.client.request(contractsOf(service).list, request, trace)),
    );
    const pages: ListDeadLettersV1Response[] = [];
    const unavailable: DeadLetterListDto['unavailable'] = [];
    answers.forEach((answer, index) => {
      if (answer.status === 'fulfilled') pages.push(answer.value);
      else unavailable.push({ service: services[index], reason: describe(answer.reason) });
    });
    if (pages.length === 0) {
      const first = answers[0];
      if (first?.status === 'rejected' && first.reason instanceof ContractError) throw first.reason;
      throw new ContractError('UNAVAILABLE', 'No service answered for its dead letters');
    }
    const items = pages
      .flatMap((page) => page.deadLetters)
      .sort((left, right) => left.id - right.id)
      .slice(0, request.limit);
    return { items, total: pages.reduce((sum, page) => sum + page.total, 0), unavailable };
  }

  async replay(id: number, trace: RequestOptions = {}): Promise<DeadLetterReplayDto> {
    const answers = await Promise.allSettled(
      DEAD_LETTER_SERVICES.map(async (service) => ({
        service,
        ...(await this.client.request(contractsOf(service).replay, { id }, trace)),
      })),
    );
    const replayed = answers.find((answer) => answer.status === 'fulfilled');
    if (replayed) return replayed.value;
    const failures = answers.map((answer): unknown => (answer.status === 'rejected' ? answer.reason : undefined));
    const unexpected = failures.find((error) => !(error instanceof ContractError && error.code === 'NOT_FOUND'));
    // Not found by those that answered, but one did not answer: it may be its dead letter, so "try again" is honest.
    if (unexpected instanceof ContractError) throw unexpected;
    if (unexpected !== undefined) throw new ContractError('INTERNAL', describe(unexpected));
    throw ContractError.notFound('Dead letter', String(id));
  }
}
