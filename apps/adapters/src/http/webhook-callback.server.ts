import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import express, { type Request, type Response } from 'express';
import { IsNull, type Repository } from 'typeorm';
import {
  ContractError,
  ReportTaskV1,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookResultV1,
  type ReportTaskV1Request,
} from '@ioa/contracts';
import { ContractClient, toContractError, validatePayload } from '@ioa/messaging';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import { AdaptedAgentEntity } from '../agents/adapted-agent.entity.js';
import { AgentTargets } from '../secrets/agent-targets.js';
import { WebhookTaskEntity } from './webhook-task.entity.js';
import { reportOfWebhookResult } from './webhook-result.js';
import { isValidSignature } from './webhook-signature.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one HTTP route of the adapters service: `POST /callbacks/<agentId>/<taskId>`, where a webhook that answered
 * `202` sends its result later. Platform traffic never comes here (that is NATS); only the webhooks' callbacks,
 * each checked against the agent's secret (HMAC of the raw body) and against a task still pending for that agent.
 * Any replica can take a callback: the pending task and the secret are in the database.
 */
@Injectable()
export class WebhookCallbackServer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookCallbackServer.name);
  private server?: Server;
  private baseUrl = '';

  constructor(
    @Inject(adaptersConfig.KEY) private readonly config: AdaptersConfig,
    @InjectRepository(AdaptedAgentEntity) private readonly agents: Repository<AdaptedAgentEntity>,
    @InjectRepository(WebhookTaskEntity) private readonly pending: Repository<WebhookTaskEntity>,
    private readonly client: ContractClient,
    private readonly targets: AgentTargets,
  ) {}

  async onModuleInit(): Promise<void> {
    const app = express();
    app.disable('x-powered-by');
    app.post(
      '/callbacks/:agentId/:taskId',
      express.raw({ type: () => true, limit: '1mb' }),
      (request: Request, response: Response) => {
        void this.onCallback(request, response);
      },
    );
    app.use((_request: Request, response: Response) => {
      response.status(404).json({ message: 'Only POST /callbacks/<agentId>/<taskId> is served here' });
    });
    const server = app.listen(this.config.callbackPort, '0.0.0.0');
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    this.baseUrl = (this.config.callbackBaseUrl ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
    this.logger.log(`Webhook callbacks on ${this.baseUrl}/callbacks/<agentId>/<taskId>`);
  }

  /** Where the webhook of `agentId` sends the late result of `taskId`. */
  callbackUrl(agentId: string, taskId: string): string {
    return `${this.baseUrl}/callbacks/${agentId}/${taskId}`;
  }

  callbackUrlTemplate(agentId: string): string {
    return `${this.baseUrl}/callbacks/${agentId}/{taskId}`;
  }

  private async onCallback(request: Request, response: Response): Promise<void> {
    const reply = (status: number, message: string) => response.status(status).json({ message });
    const agentId = String(request.params.agentId);
    const taskId = String(request.params.taskId);
    if (!UUID.test(agentId) || !UUID.test(taskId)) return void reply(404, 'Unknown agent or task');
    const agent = await this.agents.findOneBy({ id: agentId, kind: 'http' });
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    // The same answer for an unknown agent and a bad signature: the route tells a stranger nothing.
    const secret = agent ? this.openSecret(agent) : null;
    if (!secret || !isValidSignature(secret, body, request.header(WEBHOOK_SIGNATURE_HEADER))) {
      return void reply(401, `Missing or invalid ${WEBHOOK_SIGNATURE_HEADER} signature`);
    }
    const task = await this.pending.findOneBy({ taskId, agentId });
    if (!task) return void reply(404, `Task ${taskId} was never handed to this webhook`);
    if (task.finishedAt) return void reply(200, 'Already recorded');
    let result: WebhookResultV1;
    try {
      result = await validatePayload(WebhookResultV1, parseJson(body));
    } catch (error) {
      return void reply(400, toContractError(error).message);
    }
    const report: ReportTaskV1Request = { taskId, agentId, ...reportOfWebhookResult(result) };
    try {
      await this.client.request(ReportTaskV1, report);
    } catch (error) {
      const contractError = toContractError(error);
      if (contractError.retryable)
        return void reply(503, `The platform is unavailable, retry: ${contractError.message}`);
      // Canceled or finished meanwhile: nothing will take this result, so the webhook must not retry it.
      await this.pending.update({ taskId, finishedAt: IsNull() }, { finishedAt: new Date() });
      return void reply(409, contractError.message);
    }
    if (report.state !== 'working') await this.pending.update({ taskId }, { finishedAt: new Date() });
    reply(200, 'Recorded');
  }

  /** The agent's signing secret, or null when it has none or it cannot be opened (a master key went missing). */
  private openSecret(agent: AdaptedAgentEntity): string | null {
    try {
      return this.targets.of(agent).secret;
    } catch (error) {
      this.logger.error(`The secret of ${agent.name} cannot be opened: ${(error as Error).message}`);
      return null;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ContractError('MALFORMED_PAYLOAD', 'The callback body is not JSON');
  }
}
