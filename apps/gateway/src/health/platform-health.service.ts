import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AdaptersHealthV1,
  AgentHostHealthV1,
  ChatHealthV1,
  ContractError,
  DiscoveryHealthV1,
  RegistryHealthV1,
  SchedulerHealthV1,
  type HealthV1Request,
  type HealthV1Response,
  type RequestContract,
} from '@ioa/contracts';
import { natsConfig } from '@ioa/config';
import { ContractClient, NATS_CONNECTION } from '@ioa/messaging';
import { gatewayConfig } from '../gateway.config.js';
import type { PlatformHealthDto, Reachability, ServiceHealthDto, ServiceName } from './platform-health.dto.js';

const HEALTH_CONTRACTS: Record<ServiceName, RequestContract<HealthV1Request, HealthV1Response>> = {
  registry: RegistryHealthV1,
  discovery: DiscoveryHealthV1,
  chat: ChatHealthV1,
  scheduler: SchedulerHealthV1,
  'agent-host': AgentHostHealthV1,
  adapters: AdaptersHealthV1,
};

/**
 * Services the gateway's API cannot work without, each with the database it owns. The others are reported but do
 * not make the platform unhealthy (yet: goals will need the scheduler and chat).
 */
const REQUIRED_SERVICES: readonly ServiceName[] = ['registry', 'discovery'];

/** Asks every service for its health in parallel and folds the answers into one verdict. */
@Injectable()
export class PlatformHealthService {
  constructor(
    private readonly client: ContractClient,
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(gatewayConfig.KEY) private readonly gateway: ConfigType<typeof gatewayConfig>,
    @Inject(natsConfig.KEY) private readonly nats: ConfigType<typeof natsConfig>,
  ) {}

  async check(): Promise<PlatformHealthDto> {
    const timeoutMs = Math.min(this.gateway.healthTimeoutMs, this.nats.requestTimeoutMs);
    const names = Object.keys(HEALTH_CONTRACTS) as ServiceName[];
    const [nats, ...answers] = await Promise.all([
      this.probeNats(timeoutMs),
      ...names.map((name) => this.probeService(HEALTH_CONTRACTS[name], timeoutMs)),
    ]);
    const services = Object.fromEntries(names.map((name, index) => [name, answers[index]])) as Record<
      ServiceName,
      ServiceHealthDto
    >;
    const required = REQUIRED_SERVICES.map((name) => services[name]);
    // A stuck consumer stalls whatever flows through it (task results, goal progress), wherever it runs.
    const stuck = Object.values(services).some((service) => service.consumers?.some((consumer) => consumer.stuck));
    const answering = required.every((service) => service.status !== 'down' && service.database === 'up');
    const healthy = required.every((service) => service.status === 'up');
    // A stuck consumer (which also makes its own service degraded) is an operator's alarm, not a reason to stop
    // serving: the services still answer, so readiness ignores it.
    const ready = nats === 'up' && answering;
    return {
      status: ready && healthy && !stuck ? 'ok' : 'degraded',
      ready,
      nats,
      database: databaseOf(required),
      services,
    };
  }

  /** A round trip to the server, not just the client's idea of its connection state. */
  private async probeNats(timeoutMs: number): Promise<Reachability> {
    if (this.connection.isClosed()) return 'down';
    try {
      await withTimeout(this.connection.flush(), timeoutMs);
      return 'up';
    } catch {
      return 'down';
    }
  }

  private async probeService(
    contract: RequestContract<HealthV1Request, HealthV1Response>,
    timeoutMs: number,
  ): Promise<ServiceHealthDto> {
    const startedAt = Date.now();
    try {
      const answer = await this.client.request(contract, {}, { timeoutMs });
      const health: ServiceHealthDto = {
        status: answer.status === 'ok' ? 'up' : 'degraded',
        uptimeSeconds: answer.uptimeSeconds,
        latencyMs: Date.now() - startedAt,
      };
      if (answer.database !== undefined) health.database = answer.database;
      if (answer.consumers !== undefined) health.consumers = answer.consumers;
      return health;
    } catch (error) {
      const reason = error instanceof ContractError ? `${error.code}: ${error.message}` : String(error);
      return { status: 'down', reason };
    }
  }
}

/** `up` when every database owner says so, `down` when one says down, `unknown` when we could not ask them all. */
function databaseOf(owners: ServiceHealthDto[]): Reachability | 'unknown' {
  if (owners.some((service) => service.database === 'down')) return 'down';
  if (owners.every((service) => service.database === 'up')) return 'up';
  return 'unknown';
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
