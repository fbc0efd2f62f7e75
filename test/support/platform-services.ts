import type { INestMicroservice, LogLevel, Type } from '@nestjs/common';
import { createService } from '@ioa/messaging';
import { AgentHostModule } from '../../apps/agent-host/src/agent-host.module.js';
import { ChatModule } from '../../apps/chat/src/chat.module.js';
import { DiscoveryModule } from '../../apps/discovery/src/discovery.module.js';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { SchedulerModule } from '../../apps/scheduler/src/scheduler.module.js';

/** A service to boot in a system test: its root module and its name (also its NATS queue group). */
export type PlatformService = readonly [module: Type, name: string];

/** The services a goal needs, in boot order: what every system test that runs goals starts. */
export const GOAL_SERVICES: readonly PlatformService[] = [
  [RegistryModule, 'registry'],
  [DiscoveryModule, 'discovery'],
  [ChatModule, 'chat'],
  [SchedulerModule, 'scheduler'],
  [AgentHostModule, 'agent-host'],
];

/**
 * Boots each service in its own Nest microservice on the environment already applied (NATS_URL, DATABASE_URL…),
 * one after the other, as the system tests run them in-process.
 */
export async function startServices(
  services: readonly PlatformService[],
  logger: LogLevel[] | false = false,
): Promise<INestMicroservice[]> {
  const started: INestMicroservice[] = [];
  for (const [module, name] of services) started.push(await createService(module, { name, logger }));
  return started;
}
