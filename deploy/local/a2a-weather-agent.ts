import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  A2A_PROTOCOL_VERSION,
  AGENT_CARD_PATH,
  Role,
  TaskState,
  type AgentCard,
  type Message,
  type Part,
  type Task,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { legacyAgentCardRouter } from '@a2a-js/sdk/compat/v0_3/server/express';

/**
 * A real A2A agent built with `@a2a-js/sdk`'s server parts, a weather forecaster: `npm run demo` starts it to show
 * a third-party agent at work in a goal, and the adapters tests use it as their A2A peer.
 * - A brief naming a city ("… in Lyon …") gets a forecast artifact, after a `working` update.
 * - A brief without a city asks "For which city?" (`input-required`); the answer on the same task completes it.
 * - A brief containing "long-running" works until canceled (it checks every 20 ms) and then reports `canceled`.
 * `protocol: '0.3'` serves only the v0.3 card and JSON-RPC methods (`message/send`, `message/stream`…) through
 * the SDK's compatibility layer, as an agent that has not migrated to v1.0 would.
 */
export interface A2aWeatherAgent {
  url: string;
  /** JSON-RPC method names received, in order (v1.0: `SendStreamingMessage`; v0.3: `message/stream`). */
  methods: string[];
  /** Briefs received (the text of the first message of each task). */
  briefs: string[];
  canceledTaskIds: string[];
  stop(): Promise<void>;
}

export interface A2aWeatherAgentOptions {
  protocol?: '1.0' | '0.3';
  name?: string;
  port?: number;
  streaming?: boolean;
}

const CITY = /\b(?:in|for|at)\s+([A-Z][a-zA-Z-]+)/;

class WeatherExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();

  constructor(private readonly record: { briefs: string[]; canceledTaskIds: string[] }) {}

  cancelTask = (taskId: string): Promise<void> => {
    this.canceled.add(taskId);
    this.record.canceledTaskIds.push(taskId);
    return Promise.resolve();
  };

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const text = textOf(context.userMessage.parts);
    const task: Task = context.task ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
      artifacts: [],
      history: [context.userMessage],
      metadata: {},
    };
    if (!context.task) this.record.briefs.push(text);
    bus.publish(AgentEvent.task(task));
    const status = (state: TaskState, message?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            timestamp: new Date().toISOString(),
            message: message ? agentMessage(message, taskId, contextId) : undefined,
          },
          metadata: {},
        }),
      );
    // A follow-up on a task that asked for a city: the whole answer is the city.
    const city = context.task ? text.trim().split(/\s+/)[0] : CITY.exec(text)?.[1];
    if (!context.task && /long-running/i.test(text)) {
      status(TaskState.TASK_STATE_WORKING, 'Watching the sky until told to stop');
      while (!this.canceled.has(taskId)) await new Promise((resolve) => setTimeout(resolve, 20));
      status(TaskState.TASK_STATE_CANCELED, 'Stopped on request');
      bus.finished();
      return;
    }
    if (!city) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, 'For which city?');
      bus.finished();
      return;
    }
    status(TaskState.TASK_STATE_WORKING, `Looking up the forecast for ${city}`);
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'forecast',
          description: 'The forecast',
          parts: [textPart(`Forecast for ${city}: sunny, 24 °C, no rain expected.`)],
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

export async function startA2aWeatherAgent(options: A2aWeatherAgentOptions = {}): Promise<A2aWeatherAgent> {
  const protocol = options.protocol ?? '1.0';
  const record = { methods: [] as string[], briefs: [] as string[], canceledTaskIds: [] as string[] };
  const app = express();
  const server: Server = app.listen(options.port ?? 0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: options.name ?? (protocol === '0.3' ? 'Legacy Weather Oracle' : 'Weather Oracle'),
    description:
      'Answers questions about the weather: forecasts, rain, wind and temperatures for any city. Asks for the ' +
      'city when the question does not name one.',
    supportedInterfaces: [
      {
        url: `${url}/a2a/jsonrpc`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: protocol === '0.3' ? '0.3' : A2A_PROTOCOL_VERSION,
      },
    ],
    provider: { organization: 'Weather Test Inc.', url: 'https://weather.example.org' },
    version: protocol === '0.3' ? '0.3.0' : '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'forecast',
        name: 'Weather forecast',
        description: 'Forecast for a city: rain probability, wind and temperatures.',
        tags: ['weather', 'forecast', 'rain'],
        examples: ['Will it rain in Lyon tomorrow?'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new WeatherExecutor(record));
  // Records the JSON-RPC method of each call, so a test can see which protocol version was spoken.
  app.use('/a2a/jsonrpc', express.json({ limit: '1mb' }), (request, _response, next) => {
    const method = (request.body as { method?: unknown } | undefined)?.method;
    if (typeof method === 'string') record.methods.push(method);
    next();
  });
  if (protocol === '0.3') {
    // A v0.3 agent answers every card request with the v0.3 shape, whatever version the client announces.
    app.use(`/${AGENT_CARD_PATH}`, (request, _response, next) => {
      request.headers['a2a-version'] = '0.3';
      next();
    });
    app.use(`/${AGENT_CARD_PATH}`, legacyAgentCardRouter({ agentCardProvider: handler }));
  } else {
    app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  }
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      legacyCompat: { enabled: protocol === '0.3' },
    }),
  );
  return {
    url,
    ...record,
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

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    taskId,
    contextId,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

function textOf(parts: Part[]): string {
  return parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('\n');
}
