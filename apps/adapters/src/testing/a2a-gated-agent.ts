import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState, type AgentCard, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

/**
 * A real A2A v1.0 agent (`@a2a-js/sdk` server parts) whose tasks wait at a gate the test opens, so a test can stop
 * the adapters service while a task is in flight and see it carried on afterwards.
 * - A task reports `working` ("Waiting at the gate") and completes with "Done: <first line of the brief>" once
 *   `openGate()` is called (tasks started after that complete at once).
 * - A brief containing "which unit" first asks "Which unit?" (`input-required`); the answer on the same task is
 *   echoed in the result ("Done in <answer>: …").
 * - `bearerToken`: JSON-RPC calls without `Authorization: Bearer <token>` are refused with 401 (the card is public).
 */
export interface A2aGatedAgent {
  url: string;
  /** JSON-RPC methods received, in order. */
  methods: string[];
  /** Briefs received (first message of each new task). */
  briefs: string[];
  /** `Authorization` headers received on JSON-RPC calls. */
  authorizations: string[];
  openGate(): void;
  /** From now on requires this bearer token instead (the agent's owner rotated it). */
  requireToken(token: string): void;
  stop(): Promise<void>;
}

export interface A2aGatedAgentOptions {
  streaming?: boolean;
  bearerToken?: string;
  name?: string;
}

class GatedExecutor implements AgentExecutor {
  private gateOpen = false;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly briefs: string[]) {}

  openGate(): void {
    this.gateOpen = true;
    for (const release of this.waiting) release();
    this.waiting.clear();
  }

  cancelTask = (): Promise<void> => Promise.resolve();

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const text = textOf(context.userMessage.parts);
    if (!context.task) {
      this.briefs.push(text);
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
          artifacts: [],
          history: [context.userMessage],
          metadata: {},
        }),
      );
    } else {
      bus.publish(AgentEvent.task(context.task));
    }
    const status = (state: TaskState, message?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            timestamp: new Date().toISOString(),
            message: message
              ? {
                  messageId: randomUUID(),
                  role: Role.ROLE_AGENT,
                  parts: [textPart(message)],
                  taskId,
                  contextId,
                  metadata: {},
                  extensions: [],
                  referenceTaskIds: [],
                }
              : undefined,
          },
          metadata: {},
        }),
      );
    const brief = context.task ? textOf(context.task.history[0]?.parts ?? []) : text;
    if (!context.task && /which unit/i.test(text)) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which unit?');
      bus.finished();
      return;
    }
    status(TaskState.TASK_STATE_WORKING, 'Waiting at the gate');
    if (!this.gateOpen) await new Promise<void>((resolve) => this.waiting.add(resolve));
    const unit = context.task ? ` in ${text.trim()}` : '';
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'result',
          description: 'The result',
          parts: [textPart(`Done${unit}: ${brief.split('\n')[0]}`)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
    bus.finished();
  }
}

export async function startA2aGatedAgent(options: A2aGatedAgentOptions = {}): Promise<A2aGatedAgent> {
  const record = { methods: [] as string[], briefs: [] as string[], authorizations: [] as string[] };
  const executor = new GatedExecutor(record.briefs);
  let bearerToken = options.bearerToken;
  const app = express();
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: options.name ?? 'Gated Worker',
    description: 'Does a task when the gate opens; asks for the unit when the task wants one.',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: { organization: 'Gate Test Inc.', url: 'https://gate.example.org' },
    version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'gated-work',
        name: 'Gated work',
        description: 'Any task, done when the gate opens.',
        tags: ['gate'],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/a2a/jsonrpc', express.json({ limit: '1mb' }), (request, response, next) => {
    const authorization = request.header('authorization') ?? '';
    record.authorizations.push(authorization);
    if (bearerToken && authorization !== `Bearer ${bearerToken}`) {
      response.status(401).json({ message: 'A bearer token is required' });
      return;
    }
    const method = (request.body as { method?: unknown } | undefined)?.method;
    if (typeof method === 'string') record.methods.push(method);
    next();
  });
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    ...record,
    openGate: () => executor.openGate(),
    requireToken: (token) => {
      bearerToken = token;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function textOf(parts: Part[]): string {
  return parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('\n');
}
