import type { NatsConnection } from '@nats-io/transport-node';
import { ENDED_GOAL_STATUSES, GetGoalV1, type GoalV1 } from '@ioa/contracts';
import type { NatsServerOptions } from '@ioa/embedded';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { GOAL_SERVICES, startServices } from './platform-services.js';

/** The platform as an external agent meets it, and a bare NATS client to ask it things. */
export interface AgentPlatform {
  infrastructure: TestInfrastructure;
  client: NatsConnection;
  /** A request on a contract subject; its `data`, or an error naming the code. */
  call<T>(subject: string, body: unknown): Promise<T>;
  /** Polls the goal until it has ended. */
  finishedGoal(goalId: string): Promise<GoalV1>;
  stop(): Promise<void>;
}

/**
 * Every service an agent deals with — registry, discovery, chat, scheduler, and agent-host (whose communicator
 * speaks for agents that do not speak for themselves, with the offline model) — on a real broker and database.
 */
export async function startAgentPlatform(options: {
  nats?: NatsServerOptions;
  environment: Record<string, string>;
}): Promise<AgentPlatform> {
  const infrastructure = await startTestInfrastructure({ nats: options.nats });
  infrastructure.applyEnvironment(options.environment);
  const services = await startServices(GOAL_SERVICES);
  const client = await connectRaw(infrastructure.natsUrl);

  async function call<T>(subject: string, body: unknown): Promise<T> {
    const reply = await rawRequest(client, subject, body);
    if (!reply.ok) throw new Error(`${subject}: ${reply.error?.code}: ${reply.error?.message}`);
    return reply.data as T;
  }

  return {
    infrastructure,
    client,
    call,
    finishedGoal: async (goalId) => {
      const ended = await expectEventually(
        async () => {
          const goal = await call<GoalV1>(GetGoalV1.subject, { goalId });
          return ENDED_GOAL_STATUSES.includes(goal.status) ? goal : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 250, message: 'the goal ends' },
      );
      return ended!;
    },
    stop: async () => {
      await client.close();
      for (const service of services.reverse()) await service.close();
      await infrastructure.stop();
    },
  };
}
