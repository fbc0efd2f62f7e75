import type { INestApplication } from '@nestjs/common';
import { ListAgentsV1, type ListAgentsV1Response } from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import { startAgentPlatform, type AgentPlatform } from '../../../../test/support/agent-platform.js';
import { createGatewayApp } from '../gateway.app.js';

export interface GatewayOverPlatform {
  platform: AgentPlatform;
  gateway: INestApplication;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * The gateway as production builds it, listening on a free port, in front of the real platform (registry, discovery,
 * chat, scheduler, agent-host with the offline model), once the built-in agents are online.
 */
export async function startGatewayOverPlatform(): Promise<GatewayOverPlatform> {
  const platform = await startAgentPlatform({ environment: { AGENT_HOST_HEARTBEAT_MS: '1000' } });
  const gateway = await createGatewayApp({ logger: false });
  await gateway.listen(0, '127.0.0.1');
  const baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
  await expectEventually(
    async () => {
      const online = { owner: 'ioa-builtin', status: 'online' };
      return (await platform.call<ListAgentsV1Response>(ListAgentsV1.subject, online)).items.length === 3;
    },
    { timeoutMs: 120_000, message: 'the built-in agents come online' },
  );
  return {
    platform,
    gateway,
    baseUrl,
    stop: async () => {
      await gateway.close();
      await platform.stop();
    },
  };
}
