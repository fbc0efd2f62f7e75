import { Inject, Injectable } from '@nestjs/common';
import type { AdaptedEndpointKind } from '@ioa/contracts';
import { ENDPOINT_RUNNERS, type EndpointRunner } from './endpoint-runner.js';

/** The runner of each endpoint kind. */
@Injectable()
export class EndpointRunners {
  private readonly byKind: Map<AdaptedEndpointKind, EndpointRunner>;

  constructor(@Inject(ENDPOINT_RUNNERS) runners: EndpointRunner[]) {
    this.byKind = new Map(runners.map((runner) => [runner.kind, runner]));
  }

  for(kind: AdaptedEndpointKind): EndpointRunner {
    const runner = this.byKind.get(kind);
    if (!runner) throw new Error(`No runner serves ${kind} endpoints`);
    return runner;
  }
}
