import { IsBoolean, IsIn, IsInt, IsOptional, IsString } from 'class-validator';
import { requestContract, type ContractOwner } from './contract.js';
import { IsNested } from './validation.js';

/** @since 1 */
export class HealthV1Request {}

/**
 * One durable JetStream consumer of the service, as the server counts it.
 *
 * `stuck` is true while events wait and none moves: the consumer has as many events in hand as it may
 * (`ackPending` at its `maxAckPending`, so the server delivers nothing more), or one handler has been running for the
 * service's stuck threshold, or events are pending and none has been delivered to it for that long. A poison event
 * being retried does not make a consumer stuck: later events keep flowing past it, and it ends as a dead letter.
 * @since 1
 */
export class ConsumerHealthV1 {
  /** Durable consumer name. */
  @IsString()
  name: string;

  /** The one subject it consumes. */
  @IsString()
  subject: string;

  /** Events in the stream not yet delivered to it. */
  @IsInt()
  pending: number;

  /** Events delivered and not yet acknowledged. */
  @IsInt()
  ackPending: number;

  @IsInt()
  maxAckPending: number;

  /** Events delivered more than once and not yet acknowledged. */
  @IsInt()
  redelivered: number;

  /** Events it gave up on (see the dead-letter subjects). */
  @IsInt()
  deadLetters: number;

  @IsBoolean()
  stuck: boolean;

  /** Why it counts as stuck. */
  @IsOptional()
  @IsString()
  stuckReason?: string;
}

/** @since 1 */
export class HealthV1Response {
  @IsString()
  service: string;

  @IsIn(['ok', 'degraded'])
  status: 'ok' | 'degraded';

  /** `up`/`down` for services that own tables; absent for services without a database. */
  @IsOptional()
  @IsIn(['up', 'down'])
  database?: 'up' | 'down';

  @IsInt()
  uptimeSeconds: number;

  /** The service's JetStream consumers; absent for services that consume no stream. `degraded` while one is stuck. */
  @IsOptional()
  @IsNested(() => ConsumerHealthV1, { each: true })
  consumers?: ConsumerHealthV1[];
}

function healthContract(owner: ContractOwner) {
  return requestContract<HealthV1Request, HealthV1Response>({
    subject: `ioa.${owner}.health.v1`,
    owner,
    request: HealthV1Request,
    response: HealthV1Response,
    summary: `Liveness of the ${owner} service and reachability of its database.`,
    since: '1',
  });
}

export const RegistryHealthV1 = healthContract('registry');
export const DiscoveryHealthV1 = healthContract('discovery');
export const ChatHealthV1 = healthContract('chat');
export const SchedulerHealthV1 = healthContract('scheduler');
export const AgentHostHealthV1 = healthContract('agent-host');
export const AdaptersHealthV1 = healthContract('adapters');
