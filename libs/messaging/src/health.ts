import { Controller, type DynamicModule, Inject, Logger, Module, Optional, type Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  DEAD_LETTER_CONTRACTS,
  ListDeadLettersV1Request,
  ReplayDeadLetterV1Request,
  type HealthV1Request,
  type HealthV1Response,
  type ListDeadLettersV1Response,
  type ReplayDeadLetterV1Response,
  type RequestContract,
} from '@ioa/contracts';
import { EventBus } from './event-bus.js';
import { HandleRequest } from './handler.decorators.js';

/** Provided by services that own a database (see `@ioa/database`), so health can report its reachability. */
export const DATABASE_PROBE = Symbol('DATABASE_PROBE');

export interface DatabaseProbe {
  isReachable(): Promise<boolean>;
}

const startedAt = Date.now();

/**
 * The operator's view of a service: answers its `ioa.<service>.health.v1` subject (database, stream consumers) and
 * its dead-letter subjects (`ioa.<service>.dead-letter.list.v1` / `…replay.v1`).
 */
@Module({})
export class HealthModule {
  static forService(contract: RequestContract<HealthV1Request, HealthV1Response>): DynamicModule {
    @Controller()
    class HealthController {
      private readonly logger = new Logger('Health');

      constructor(
        @Optional() @Inject(DATABASE_PROBE) private readonly database?: DatabaseProbe,
        @Optional() private readonly events?: EventBus,
      ) {}

      @HandleRequest(contract)
      async onHealth(): Promise<HealthV1Response> {
        const response: HealthV1Response = {
          service: contract.owner,
          status: 'ok',
          uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
        };
        if (this.database) {
          const reachable = await this.database.isReachable();
          response.database = reachable ? 'up' : 'down';
          if (!reachable) response.status = 'degraded';
        }
        if (this.events) {
          try {
            const consumers = await this.events.consumerHealth();
            if (consumers.length > 0) response.consumers = consumers;
            if (consumers.some((consumer) => consumer.stuck)) response.status = 'degraded';
          } catch (error) {
            // JetStream unreachable: the service cannot consume either, which is a degraded service, not a crash.
            this.logger.warn(`Consumer health unavailable: ${(error as Error).message}`);
            response.status = 'degraded';
          }
        }
        return response;
      }
    }
    const controllers: Type[] = [HealthController as Type];
    const deadLetters = DEAD_LETTER_CONTRACTS[contract.owner];
    if (deadLetters) {
      const { list, replay } = deadLetters;
      @Controller()
      class DeadLettersController {
        constructor(private readonly events: EventBus) {}

        @HandleRequest(list)
        onList(@Payload() request: ListDeadLettersV1Request): Promise<ListDeadLettersV1Response> {
          return this.events.deadLetters.list(contract.owner, request);
        }

        @HandleRequest(replay)
        onReplay(@Payload() request: ReplayDeadLetterV1Request): Promise<ReplayDeadLetterV1Response> {
          return this.events.deadLetters.replay(contract.owner, request.id);
        }
      }
      controllers.push(DeadLettersController as Type);
    }
    return { module: HealthModule, controllers };
  }
}
