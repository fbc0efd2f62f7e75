import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Role, TaskState, type AgentCard, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { adaptersConfig, type AdaptersConfig } from '../adapters.config.js';
import {
  briefText,
  type EndpointProfile,
  type EndpointRunner,
  type EndpointTarget,
  cancelsRemoteWork,
  type TaskOutcome,
  type TaskRun,
} from '../tasks/endpoint-runner.js';
import { describeError, EndpointCallError, isRetryable, withRetries } from '../tasks/outbound-call.js';
import { profileFromA2aCard } from './a2a-card.mapper.js';

/** Where an A2A exchange stands after one round (one SendMessage, streamed or not). */
interface RoundResult {
  taskId: string;
  contextId: string;
  state: TaskState;
  /** Text of the latest status message (the question when input is required, the reason when it failed). */
  statusText: string;
  artifacts: Map<string, string>;
  /** A direct Message reply (no task at all): the whole answer. */
  reply?: string;
  /** Whether the remote ids were checkpointed. */
  saved?: boolean;
  /** Timestamp of the latest status (A2A `TaskStatus.timestamp`), to tell a new question from the one answered. */
  statusAt?: string;
  /** Timestamp of the interruption this round answers. */
  answeredAt?: string;
}

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/**
 * `a2a` endpoints: remote A2A agents, v1.0 or v0.3 (the SDK's compatibility layer picks the transport from the
 * card's shape). A task goes out as one A2A message with the brief; the answer is streamed when the card says so.
 * A2A `working` becomes our progress, `completed` with artifacts our result, `input-required` a question to the
 * group whose answer goes back on the same A2A task, `failed` / `rejected` / `canceled` our failure with the
 * agent's reason; our cancel cancels the A2A task.
 */
@Injectable()
export class A2aEndpointRunner implements EndpointRunner {
  readonly kind = 'a2a' as const;
  private readonly logger = new Logger(A2aEndpointRunner.name);

  constructor(@Inject(adaptersConfig.KEY) private readonly config: AdaptersConfig) {}

  async describe(target: EndpointTarget): Promise<EndpointProfile> {
    return profileFromA2aCard(
      await withRetries(`Reading the A2A agent card at ${target.url}`, { attempts: 1 }, () =>
        this.resolver(target, this.config.probeTimeoutMs).resolve(target.url),
      ),
    );
  }

  async probe(target: EndpointTarget): Promise<void> {
    await this.resolver(target, this.config.probeTimeoutMs).resolve(target.url);
  }

  async run(task: TaskRun): Promise<TaskOutcome> {
    const card = await this.readCard(task.target, task.signal);
    const client = await this.factory(task.target).createFromAgentCard(card);
    const streaming = card.capabilities?.streaming === true;
    let text = briefText(task.assignment.brief);
    // The round in flight, so a cancel can name the remote task even while its first stream is still open.
    let round = emptyRound();
    const onAbort = () => {
      if (round.taskId && cancelsRemoteWork(task.signal)) void this.cancelRemote(client, round.taskId, task.target);
    };
    task.signal.addEventListener('abort', onAbort, { once: true });
    // Resumed after an adapters restart: the remote task went on without us; follow it rather than send it again.
    const resumed = task.resumedFrom.a2a;
    let send = true;
    if (resumed) {
      round = { ...emptyRound(), taskId: resumed.taskId, contextId: resumed.contextId, saved: true };
      await this.follow(client, streaming, round, task);
      send = false;
    }
    try {
      for (;;) {
        if (send) {
          await this.sendRound(client, streaming, text, round, task);
          if (round.reply === undefined && !isSettled(round)) await this.follow(client, streaming, round, task);
        }
        send = true;
        if (round.reply !== undefined) return { state: 'completed', content: round.reply };
        switch (round.state) {
          case TaskState.TASK_STATE_COMPLETED:
            return { state: 'completed', content: resultOf(round) };
          case TaskState.TASK_STATE_INPUT_REQUIRED:
          case TaskState.TASK_STATE_AUTH_REQUIRED: {
            const question = round.statusText || 'The agent needs more input to go on.';
            text = await task.askGroup(question);
            round = {
              ...emptyRound(),
              taskId: round.taskId,
              contextId: round.contextId,
              saved: true,
              answeredAt: round.statusAt,
            };
            continue;
          }
          case TaskState.TASK_STATE_REJECTED:
            return {
              state: 'rejected',
              content: `The A2A agent rejected the task: ${round.statusText || 'no reason'}`,
            };
          case TaskState.TASK_STATE_CANCELED:
            return { state: 'failed', content: `The A2A agent canceled the task: ${round.statusText || 'no reason'}` };
          case TaskState.TASK_STATE_FAILED:
            return { state: 'failed', content: `The A2A agent failed: ${round.statusText || 'no reason given'}` };
          default:
            throw new EndpointCallError(
              `The A2A task ${round.taskId} stopped in state ${TaskState[round.state]}`,
              false,
            );
        }
      }
    } finally {
      task.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Follows a remote task until it settles (ends, or asks for input): GetTask first (it may have settled while
   * nobody listened), then SubscribeToTask when the agent streams, else GetTask with backoff.
   */
  private async follow(client: Client, streaming: boolean, round: RoundResult, task: TaskRun): Promise<void> {
    if (!round.taskId) throw new EndpointCallError('The A2A agent answered without a task or a message', false);
    applyTask(round, await this.getTask(client, round, task));
    if (isSettled(round)) return;
    if (streaming) {
      try {
        for await (const event of client.resubscribeTask({ tenant: '', id: round.taskId }, { signal: task.signal })) {
          if ((await this.apply(round, event, task)) && isSettled(round)) return;
        }
      } catch (error) {
        if (task.signal.aborted) throw error;
        // The stream broke (or the agent ended it early): polling below still sees the task through.
        this.logger.log(`SubscribeToTask ${round.taskId} at ${task.target.url}: ${describeError(error)}; polling`);
      }
    }
    let delayMs = 100;
    while (!isSettled(round)) {
      task.signal.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 5_000);
      applyTask(round, await this.getTask(client, round, task));
    }
  }

  private getTask(client: Client, round: RoundResult, task: TaskRun): Promise<Task> {
    return withRetries(
      `A2A GetTask ${round.taskId} at ${task.target.url}`,
      { attempts: this.config.callAttempts, signal: task.signal },
      () => client.getTask({ tenant: '', id: round.taskId }, { signal: this.callSignal(task.target, task.signal) }),
    );
  }

  /** One SendMessage (streamed or blocking); `round` carries the remote task ids in and its outcome out. */
  private async sendRound(
    client: Client,
    streaming: boolean,
    text: string,
    round: RoundResult,
    task: TaskRun,
  ): Promise<void> {
    const message: Message = {
      messageId: randomUUID(),
      role: Role.ROLE_USER,
      parts: [textPart(text)],
      taskId: round.taskId,
      contextId: round.contextId,
      metadata: { ioaTaskId: task.assignment.taskId, ioaGoalId: task.assignment.goalId },
      extensions: [],
      referenceTaskIds: [],
    };
    const request = {
      tenant: '',
      message,
      metadata: {},
      configuration: {
        acceptedOutputModes: ['text/plain', 'application/json'],
        taskPushNotificationConfig: undefined,
        // Not streamed: the agent answers with the task at once and we poll it, so its ids are checkpointed before
        // the work is done (a blocking call would reveal them only at the end, too late for a restart to resume).
        returnImmediately: !streaming,
      },
    };
    try {
      if (streaming) {
        for await (const event of client.sendMessageStream(request, { signal: task.signal })) {
          const statusUpdate = await this.apply(round, event, task);
          await this.saveRemoteIds(round, task);
          // The agent ends the stream when the task settles or is interrupted. Only a status update decides that: a
          // follow-up's stream opens with the task snapshot, still showing the interruption being answered.
          if (statusUpdate && isSettled(round)) break;
          if (round.reply !== undefined) break;
        }
      } else {
        const result = await client.sendMessage(request, { signal: task.signal });
        if ('role' in result) round.reply = textOf(result.parts);
        else applyTask(round, result);
        await this.saveRemoteIds(round, task);
      }
    } catch (error) {
      if (task.signal.aborted) throw error;
      if (round.taskId && round.reply === undefined) {
        // The stream broke after the agent took the task: the task may well go on (a proxy timeout, the agent
        // restarting); following it says how it ends, or fails with the reason the agent cannot be asked.
        this.logger.log(`The A2A stream of task ${round.taskId} broke (${describeError(error)}); following the task`);
        round.state = TaskState.TASK_STATE_WORKING;
        return;
      }
      throw new EndpointCallError(`A2A SendMessage to ${task.target.url} failed: ${describeError(error)}`, false);
    }
  }

  /** Saves the remote task's ids once known, so a replica resuming this task follows it instead of sending again. */
  private async saveRemoteIds(round: RoundResult, task: TaskRun): Promise<void> {
    const saved = task.resumedFrom.a2a;
    if (!round.taskId || round.saved || (saved?.taskId === round.taskId && saved.contextId === round.contextId)) return;
    round.saved = true;
    await task.checkpoint({ a2a: { taskId: round.taskId, contextId: round.contextId } });
  }

  /** Folds one stream event into the round; true when it was a status update. */
  private async apply(round: RoundResult, event: StreamResponse, task: TaskRun): Promise<boolean> {
    const payload = event.payload;
    if (!payload) return false;
    switch (payload.$case) {
      case 'task':
        applyTask(round, payload.value);
        return false;
      case 'message':
        round.reply = textOf(payload.value.parts);
        return false;
      case 'statusUpdate': {
        round.taskId ||= payload.value.taskId;
        round.contextId ||= payload.value.contextId;
        const status = payload.value.status;
        if (!status) return false;
        round.state = status.state;
        round.statusAt = status.timestamp ?? '';
        round.statusText = status.message ? textOf(status.message.parts) : '';
        if (status.state === TaskState.TASK_STATE_WORKING && round.statusText) await task.progress(round.statusText);
        return true;
      }
      case 'artifactUpdate': {
        const artifact = payload.value.artifact;
        if (!artifact) return false;
        const previous = payload.value.append ? (round.artifacts.get(artifact.artifactId) ?? '') : '';
        round.artifacts.set(artifact.artifactId, previous + textOf(artifact.parts));
        return false;
      }
    }
  }

  private async cancelRemote(client: Client, taskId: string, target: EndpointTarget): Promise<void> {
    try {
      await client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal: this.callSignal(target) });
    } catch (error) {
      // Already finished, or unreachable: nothing more we can do, and the platform no longer waits for it.
      this.logger.log(`Canceling A2A task ${taskId} at ${target.url}: ${describeError(error)}`);
    }
  }

  private readCard(target: EndpointTarget, signal?: AbortSignal): Promise<AgentCard> {
    return withRetries(
      `Reading the A2A agent card at ${target.url}`,
      { attempts: this.config.callAttempts, signal },
      () => this.resolver(target, this.timeoutOf(target)).resolve(target.url),
    );
  }

  private resolver(target: EndpointTarget, timeoutMs: number): DefaultAgentCardResolver {
    return new DefaultAgentCardResolver({
      legacyCompat: { enabled: true },
      // A timeout on every card request, and the network cause (ECONNREFUSED…) kept in the message: the SDK
      // reports only "fetch failed", which tells an operator nothing.
      fetchImpl: async (input, init) => {
        const timeout = AbortSignal.timeout(timeoutMs);
        try {
          return await authorizedFetch(target)(input, {
            ...init,
            signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
          });
        } catch (error) {
          const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
          throw new EndpointCallError(`GET ${url}: ${describeError(error)}`, isRetryable(error));
        }
      },
    });
  }

  private factory(target: EndpointTarget): ClientFactory {
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        cardResolver: this.resolver(target, this.timeoutOf(target)),
        transports: [
          new JsonRpcTransportFactory({ legacyCompat: { enabled: true }, fetchImpl: authorizedFetch(target) }),
          new RestTransportFactory({ legacyCompat: { enabled: true }, fetchImpl: authorizedFetch(target) }),
        ],
      }),
    );
  }

  private callSignal(target: EndpointTarget, signal?: AbortSignal): AbortSignal {
    const timeout = AbortSignal.timeout(this.timeoutOf(target));
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  }

  private timeoutOf(target: EndpointTarget): number {
    return target.settings.timeoutMs ?? this.config.callTimeoutMs;
  }
}

/**
 * `fetch` that presents the agent's credential (its `apiKey`, as `Authorization: Bearer`, A2A's HTTP bearer
 * scheme) on every card, JSON-RPC and REST call. The token is opened only here, per call, and never logged.
 */
function authorizedFetch(target: EndpointTarget): typeof fetch {
  if (!target.secret) return fetch;
  const secret = target.secret;
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${secret}`);
    return fetch(input, { ...init, headers });
  };
}

function emptyRound(): RoundResult {
  return { taskId: '', contextId: '', state: TaskState.TASK_STATE_SUBMITTED, statusText: '', artifacts: new Map() };
}

function isInterrupted(state: TaskState): boolean {
  return state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
}

/** Ended, or waiting for us: either way the agent has nothing more to say until we speak. */
function isSettled(round: RoundResult): boolean {
  // Right after an answer the task may still show the interruption it answers (a follow-up's first snapshot):
  // that one is not a new question.
  if (isInterrupted(round.state) && round.statusAt && round.statusAt === round.answeredAt) return false;
  return TERMINAL.has(round.state) || isInterrupted(round.state);
}

function applyTask(round: RoundResult, task: Task): void {
  round.taskId = task.id;
  round.contextId = task.contextId;
  if (task.status) {
    round.state = task.status.state;
    round.statusAt = task.status.timestamp ?? '';
    round.statusText = task.status.message ? textOf(task.status.message.parts) : round.statusText;
  }
  for (const artifact of task.artifacts) round.artifacts.set(artifact.artifactId, textOf(artifact.parts));
}

function resultOf(round: RoundResult): string {
  const artifacts = [...round.artifacts.values()].filter((text) => text.trim());
  return artifacts.length > 0 ? artifacts.join('\n\n') : round.statusText || '(the agent returned no content)';
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** Text of message or artifact parts; structured data as JSON, files by name or URL. */
function textOf(parts: Part[]): string {
  return parts
    .map((part) => {
      const content = part.content;
      if (!content) return '';
      switch (content.$case) {
        case 'text':
          return content.value;
        case 'data':
          return JSON.stringify(content.value);
        case 'url':
          return part.filename ? `${part.filename}: ${content.value}` : content.value;
        case 'raw':
          return `[${part.filename || 'file'}: ${content.value.length} bytes]`;
      }
    })
    .filter(Boolean)
    .join('\n');
}
