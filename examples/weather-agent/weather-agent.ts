import { setTimeout as sleep } from 'node:timers/promises';
import { IoaAgent, type AgentCardInput, type AgentIdentity, type AgentLogEntry } from '@ioa/agent-sdk';

/**
 * The SDK's example agent: a weather oracle. It registers, stays online, answers each task with a (made-up)
 * forecast after a progress note, stops when a task is canceled, and — when asked to speak for itself — takes its
 * own turns in group chats. The conformance kit runs against it in CI (libs/agent-sdk/src/conformance).
 */
export const WEATHER_CARD: AgentCardInput = {
  name: 'weather-oracle',
  description: 'Answers questions about the weather: forecasts, rain, wind and temperatures for any city.',
  owner: 'examples@ioa.dev',
  skills: [
    {
      id: 'forecast',
      name: 'Weather forecast',
      description: 'Forecast for a city and a day, with rain probability, wind and temperatures.',
      tags: ['weather', 'forecast', 'rain', 'temperature'],
      examples: ['Will it rain in Lyon tomorrow?', 'Forecast the weather in Oslo for Friday'],
    },
  ],
  endpoint: { kind: 'nats' },
  version: '1.0.0',
};

export interface WeatherAgentOptions {
  servers: string | string[];
  /** Another name, so that several copies can run side by side. */
  name?: string;
  /** Take its own turns (registers with `metadata.communicator: 'self'`). */
  speaksForItself?: boolean;
  /**
   * Its own NATS identity (what a broker with authentication requires): the card then registers under the
   * identity's id, owned by the identity's account.
   */
  identity?: AgentIdentity;
  /** How long "looking at the sky" takes. Default 300 ms. */
  workMs?: number;
  log?: (entry: AgentLogEntry) => void;
}

/** A forecast for whatever place the text names; deterministic, so tests can check it. */
export function forecastFor(text: string): string {
  const place = /\b(?:in|for|at|over)\s+([A-Z][\p{L}-]+)/u.exec(text)?.[1] ?? 'your city';
  return `Forecast for ${place}: sunny spells, 24 °C, light wind from the west, 10 % chance of rain.`;
}

export function startWeatherAgent(options: WeatherAgentOptions): Promise<IoaAgent> {
  const workMs = options.workMs ?? 300;
  return IoaAgent.start({
    servers: options.servers,
    identity: options.identity,
    card: {
      ...WEATHER_CARD,
      name: options.name ?? WEATHER_CARD.name,
      owner: options.identity?.accountId ?? WEATHER_CARD.owner,
    },
    log: options.log,
    onTask: async (task, context) => {
      await context.progress(`Looking at the sky for: ${task.brief.abstract}`);
      // Abortable work: a cancel (or the agent stopping) ends it at once.
      await sleep(workMs, undefined, { signal: context.signal });
      return forecastFor(`${task.brief.description} ${task.brief.inputs}`);
    },
    onTurn: options.speaksForItself
      ? (turn) => {
          const answer = turn.recentMessages.findLast((message) => message.type === 'user');
          return Promise.resolve({ type: 'conclude', content: forecastFor(answer?.content ?? turn.goal) });
        }
      : undefined,
  });
}
