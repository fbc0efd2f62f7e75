import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { ContractError, ListGoalEventsV1 } from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import { GoalEventStreams } from '../goals/goal-event-streams.js';
import { GoalsService } from '../goals/goals.service.js';
import { A2aTaskStore } from './a2a-task-store.js';
import { callerOptions } from './account-user.js';
import { followGoalEvents } from './follow-goal-events.js';
import { endsExecution, finalUpdatesOfGoal, GoalTaskTranslator, type GoalTaskUpdate } from './goal-task-translator.js';

/** Where an A2A task keeps the id of the goal it works on (the task's metadata). */
export const GOAL_ID_METADATA_KEY = 'ioaGoalId';

export function goalIdOf(task: Task | undefined): string | undefined {
  const goalId: unknown = task?.metadata?.[GOAL_ID_METADATA_KEY];
  return typeof goalId === 'string' ? goalId : undefined;
}

/** The text of a message: its text parts, in order. */
export function textOf(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text.trim() !== '')
    .join('\n')
    .trim();
}

/**
 * The agents a client names for its goal (request metadata `members`: names or ids, the first leads), skipping
 * team formation as `POST /v1/goals` allows; anything but a list of strings is handed on for the scheduler to refuse.
 */
export function membersOf(request: RequestContext): string[] | undefined {
  const members: unknown = request.request.metadata?.members ?? request.userMessage.metadata?.members;
  if (members === undefined) return undefined;
  // A non-string member is passed on as JSON, so the scheduler's refusal names what was sent.
  const list: unknown[] = Array.isArray(members) ? members : [members];
  return list.map((member) => (typeof member === 'string' ? member : JSON.stringify(member)));
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

export function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function artifactOf(update: GoalTaskUpdate & { kind: 'artifact' }): Artifact {
  return {
    artifactId: update.artifactId,
    name: update.name,
    description: update.description,
    parts: [textPart(update.text)],
    metadata: undefined,
    extensions: [],
  };
}

/** An execution in progress in this gateway: its task's context, and how to stop following the goal. */
interface Execution {
  contextId: string;
  stop: AbortController;
  /** A final state was published: nothing more may follow it. */
  ended: boolean;
  /** `input-required` was published: the task waits for the person's answer. */
  paused: boolean;
}

/**
 * The platform behind A2A: a task is one round of work on a goal, and a context is the goal's conversation.
 * - A message in a new context submits a goal (`SubmitGoalV1`, the task id as idempotency key).
 * - A message on a task that is `input-required` answers the team's question (`PostGoalMessageV1`).
 * - A message in a known context without a task id follows up: the goal re-opens (`PostGoalMessageV1`) and a new
 *   task follows the new round.
 * The execution then follows the goal's event log (the same tail as the SSE route) and publishes each step as A2A
 * status and artifact updates until the goal ends, or asks the person something. It owns no state of its own: the
 * task (with the goal's id in its metadata) is in the task store, the goal in the scheduler.
 */
@Injectable()
export class GoalAgentExecutor implements AgentExecutor {
  private readonly logger = new Logger(GoalAgentExecutor.name);
  private readonly executions = new Map<string, Execution>();
  /** Tasks paused at `input-required` in this gateway: their bus stays open until answered or canceled. */
  private readonly waiting = new Map<string, string>();

  constructor(
    private readonly goals: GoalsService,
    private readonly streams: GoalEventStreams,
    private readonly client: ContractClient,
    private readonly tasks: A2aTaskStore,
  ) {}

  /** Whether an execution in this gateway follows the task, keeping the stored task current. */
  follows(taskId: string): boolean {
    return this.executions.has(taskId);
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const execution: Execution = { contextId, stop: new AbortController(), ended: false, paused: false };
    this.executions.set(taskId, execution);
    this.waiting.delete(taskId);
    let taskPublished = false;
    try {
      const text = textOf(request.userMessage);
      if (request.task) {
        bus.publish(AgentEvent.task(request.task));
        taskPublished = true;
      }
      if (!text) {
        if (!taskPublished) bus.publish(AgentEvent.task(this.newTask(request, undefined)));
        this.publish(bus, taskId, execution, {
          kind: 'status',
          state: TaskState.TASK_STATE_FAILED,
          text: 'The message has no text: send the goal (or your answer) as a text part',
        });
        return;
      }
      const { goalId, afterSeq } = await this.startRound(request, text);
      if (!taskPublished) {
        bus.publish(AgentEvent.task(this.newTask(request, goalId)));
        taskPublished = true;
      }
      await this.follow(goalId, afterSeq, taskId, execution, bus, callerOptions(request.context));
      if (execution.paused && !execution.ended) this.waiting.set(taskId, contextId);
    } catch (error) {
      if (!taskPublished) bus.publish(AgentEvent.task(this.newTask(request, undefined)));
      const reason = error instanceof ContractError ? `${error.code}: ${error.message}` : (error as Error).message;
      this.logger.warn(`A2A task ${taskId} failed: ${reason}`);
      this.publish(bus, taskId, execution, { kind: 'status', state: TaskState.TASK_STATE_FAILED, text: reason });
    } finally {
      this.executions.delete(taskId);
    }
  }

  /**
   * Stops following the goal and ends the task `canceled`. The goal itself is canceled before this, by the request
   * handler, which also covers tasks no execution of this gateway follows.
   */
  cancelTask = (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const execution = this.executions.get(taskId);
    const contextId = execution?.contextId ?? this.waiting.get(taskId);
    this.waiting.delete(taskId);
    if (execution) execution.stop.abort();
    if (execution?.ended || contextId === undefined) return Promise.resolve();
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage(taskId, contextId, 'Canceled by the client'),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    if (execution) execution.ended = true;
    return Promise.resolve();
  };

  /** Submits the goal, answers its question or follows it up; returns where its log stood before. */
  private async startRound(request: RequestContext, text: string): Promise<{ goalId: string; afterSeq: number }> {
    const caller = callerOptions(request.context);
    const existing = goalIdOf(request.task) ?? (await this.goalOfContext(request));
    if (existing === undefined) {
      const goal = await this.goals.submit(
        { goal: text, members: membersOf(request) },
        { ...caller, idempotencyKey: `a2a:${request.taskId}` },
      );
      return { goalId: goal.id, afterSeq: 0 };
    }
    const { lastSeq } = await this.client.request(
      ListGoalEventsV1,
      { goalId: existing, afterSeq: 0, limit: 1 },
      caller,
    );
    await this.goals.postMessage(existing, { content: text }, caller);
    return { goalId: existing, afterSeq: lastSeq };
  }

  /** The goal an earlier task of this context worked on, if the context is known. */
  private async goalOfContext(request: RequestContext): Promise<string | undefined> {
    const { tasks } = await this.tasks.list(
      {
        tenant: request.context.tenant ?? '',
        contextId: request.contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 1,
        pageToken: '',
        historyLength: 0,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      },
      request.context,
    );
    return goalIdOf(tasks[0]);
  }

  private newTask(request: RequestContext, goalId: string | undefined): Task {
    return {
      id: request.taskId,
      contextId: request.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [request.userMessage],
      metadata: goalId === undefined ? {} : { [GOAL_ID_METADATA_KEY]: goalId },
    };
  }

  /** Publishes the goal's events after `afterSeq` until the goal ends or waits for the person. */
  private async follow(
    goalId: string,
    afterSeq: number,
    taskId: string,
    execution: Execution,
    bus: ExecutionEventBus,
    caller: RequestOptions,
  ): Promise<void> {
    const translator = new GoalTaskTranslator();
    const stream = await this.streams.open({
      goalId,
      afterSeq,
      follow: false,
      signal: execution.stop.signal,
      trace: caller,
    });
    if (stream === null) {
      // The goal had already ended and nothing happened since: say how it ended.
      for (const update of finalUpdatesOfGoal(await this.goals.get(goalId, caller)))
        this.publish(bus, taskId, execution, update);
      return;
    }
    await followGoalEvents(stream, execution.stop.signal, (event) => {
      for (const update of translator.translate(event)) {
        this.publish(bus, taskId, execution, update);
        if (endsExecution(update)) {
          execution.stop.abort();
          return;
        }
      }
    });
  }

  private publish(bus: ExecutionEventBus, taskId: string, execution: Execution, update: GoalTaskUpdate): void {
    if (execution.ended) return;
    const { contextId } = execution;
    if (update.kind === 'artifact') {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: artifactOf(update),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      return;
    }
    const final = endsExecution(update) && update.state !== TaskState.TASK_STATE_INPUT_REQUIRED;
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: update.state,
          message: agentMessage(taskId, contextId, update.text),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    if (final) execution.ended = true;
    if (update.state === TaskState.TASK_STATE_INPUT_REQUIRED) execution.paused = true;
  }
}
