import { EventPattern, MessagePattern } from '@nestjs/microservices';
import type { EventContract, RequestContract } from '@ioa/contracts';

/**
 * Serves a request subject of the contract. The subject comes from the contract constant, never a string,
 * and the service's queue group lets replicas share the requests.
 */
export function HandleRequest(contract: RequestContract<unknown, unknown> | RequestContract<never, unknown>) {
  return MessagePattern(contract.subject);
}

/** Listens to a core-NATS event of the contract (stream events are consumed through `EventBus.subscribe`). */
export function HandleEvent(contract: EventContract<unknown> | EventContract<never>) {
  return EventPattern(contract.subject);
}
