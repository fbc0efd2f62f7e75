import { IsIn, IsInt, IsOptional, IsString } from 'class-validator';
import { requestContract, type ContractOwner } from './contract.js';

/** @since 1 */
export class HealthV1Request {}

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
