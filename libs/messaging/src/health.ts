import { Controller, type DynamicModule, Inject, Module, Optional, type Type } from '@nestjs/common';
import type { HealthV1Response, RequestContract, HealthV1Request } from '@ioa/contracts';
import { HandleRequest } from './handler.decorators.js';

/** Provided by services that own a database (see `@ioa/database`), so health can report its reachability. */
export const DATABASE_PROBE = Symbol('DATABASE_PROBE');

export interface DatabaseProbe {
  isReachable(): Promise<boolean>;
}

const startedAt = Date.now();

/** Answers the service's `ioa.<service>.health.v1` subject. */
@Module({})
export class HealthModule {
  static forService(contract: RequestContract<HealthV1Request, HealthV1Response>): DynamicModule {
    @Controller()
    class HealthController {
      constructor(@Optional() @Inject(DATABASE_PROBE) private readonly database?: DatabaseProbe) {}

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
        return response;
      }
    }
    return { module: HealthModule, controllers: [HealthController as Type] };
  }
}
