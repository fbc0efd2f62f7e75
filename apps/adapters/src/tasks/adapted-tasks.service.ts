import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Repository } from 'typeorm';
import {
  AssignTaskV1,
  errorReply,
  okReply,
  ReportTaskV1,
  subjectFor,
  TaskAssignmentV1Request,
  TaskCanceledV1,
  TaskCanceledV1Event,
  type ReplyEnvelope,
  type ReportTaskV1Request,
  type TaskAssignmentV1Response,
} from '@ioa/contracts';
import {
  ContractClient,
  decodeJson,
  encodeJson,
  NATS_CONNECTION,
  toContractError,
  validatePayload,
} from '@ioa/messaging';
import { AdaptedAgentEntity } from '../agents/adapted-agent.entity.js';
import { ReachabilityBook } from '../agents/reachability.js';
import type { TaskOutcome } from './endpoint-runner.js';
import { EndpointRunners, targetOf } from './endpoint-runners.js';
import { GroupAnswers } from './group-answers.js';
import { describeError, EndpointCallError } from './outbound-call.js';

/** Replicas of the adapters service share each adapted agent's task subject; this is their queue group. */
export const ADAPTERS_QUEUE_GROUP = 'adapters';
const REPORT_ATTEMPTS = 4;
const REPORT_BACKOFF_MS = [200, 1000, 3000];

interface RunningTask {
  agentId: string;
  controller: AbortController;
}

/**
 * Speaks for adapted agents exactly as a native agent would: serves `ioa.agent.<id>.task.v1` (in the `adapters`
 * queue group, so one replica takes each task), acknowledges at once, runs the task on the endpoint in the
 * background and reports through `ReportTaskV1` — `working`, then the outcome, or `failed` with the reason the
 * call failed. `ioa.agent.<id>.task-canceled.v1` is heard by every replica and aborts the run, which cancels the
 * remote work where the protocol can (A2A CancelTask, the MCP request, the HTTP request).
 */
@Injectable()
export class AdaptedTasksService implements OnApplicationShutdown {
  private readonly logger = new Logger(AdaptedTasksService.name);
  private readonly channels = new Map<string, Subscription[]>();
  private readonly tasks = new Map<string, RunningTask>();
  private stopping = false;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly client: ContractClient,
    private readonly runners: EndpointRunners,
    private readonly answers: GroupAnswers,
    private readonly reachability: ReachabilityBook,
    @InjectRepository(AdaptedAgentEntity) private readonly agents: Repository<AdaptedAgentEntity>,
  ) {}

  /** Starts serving an agent's task subjects (once per agent id). */
  serve(agentId: string): void {
    if (this.channels.has(agentId) || this.stopping) return;
    this.channels.set(agentId, [
      this.connection.subscribe(subjectFor(AssignTaskV1, agentId), {
        queue: ADAPTERS_QUEUE_GROUP,
        callback: (error, message) => {
          if (!error) void this.onAssignTask(agentId, message);
        },
      }),
      this.connection.subscribe(subjectFor(TaskCanceledV1, agentId), {
        callback: (error, message) => {
          if (!error) void this.onTaskCanceled(message);
        },
      }),
    ]);
  }

  stopServing(agentId: string): void {
    for (const subscription of this.channels.get(agentId) ?? []) subscription.unsubscribe();
    this.channels.delete(agentId);
  }

  servedAgentIds(): string[] {
    return [...this.channels.keys()];
  }

  /** Tasks running on this replica, for tests and health. */
  activeTaskIds(): string[] {
    return [...this.tasks.keys()];
  }

  private async onAssignTask(agentId: string, message: Msg): Promise<void> {
    const respond = (reply: ReplyEnvelope<TaskAssignmentV1Response>) => message.respond(encodeJson(reply));
    let assignment: TaskAssignmentV1Request;
    try {
      assignment = await validatePayload(TaskAssignmentV1Request, decodeJson(message.data));
    } catch (error) {
      respond(errorReply(toContractError(error).toBody()));
      return;
    }
    if (assignment.agentId !== agentId) {
      respond(okReply({ accepted: false, reason: `This subject serves agent ${agentId}, not ${assignment.agentId}` }));
      return;
    }
    if (this.stopping) {
      respond(okReply({ accepted: false, reason: 'The adapters service is shutting down' }));
      return;
    }
    const agent = await this.agents.findOneBy({ id: agentId }).catch(() => null);
    if (!agent) {
      // Unknown here (deregistered meanwhile, or the database is unreachable): no ack, so the scheduler retries.
      respond(errorReply({ code: 'UNAVAILABLE', message: `Agent ${agentId} is not served now`, retryable: true }));
      return;
    }
    // A dispatch retried after a lost ack must not start the task twice.
    if (!this.tasks.has(assignment.taskId)) {
      const running: RunningTask = { agentId, controller: new AbortController() };
      this.tasks.set(assignment.taskId, running);
      void this.execute(agent, assignment, running).finally(() => this.tasks.delete(assignment.taskId));
    }
    respond(okReply({ accepted: true }));
  }

  private async onTaskCanceled(message: Msg): Promise<void> {
    let event: TaskCanceledV1Event;
    try {
      event = await validatePayload(TaskCanceledV1Event, decodeJson(message.data));
    } catch (error) {
      this.logger.warn(`Ignoring an invalid task cancellation: ${(error as Error).message}`);
      return;
    }
    const task = this.tasks.get(event.taskId);
    if (!task) return;
    this.logger.log(`Task ${event.taskId} canceled: ${event.reason}`);
    task.controller.abort(new Error(`canceled: ${event.reason}`));
  }

  private async execute(
    agent: AdaptedAgentEntity,
    assignment: TaskAssignmentV1Request,
    running: RunningTask,
  ): Promise<void> {
    const base = { taskId: assignment.taskId, agentId: agent.id };
    const deadlineMs = Math.max(0, Date.parse(assignment.deadline) - Date.now());
    const signal = AbortSignal.any([running.controller.signal, AbortSignal.timeout(deadlineMs)]);
    const accepted = await this.report({
      ...base,
      state: 'working',
      content: `${agent.name} (${agent.kind} endpoint) took the task`,
    });
    if (!accepted || signal.aborted) return;
    let outcome: TaskOutcome;
    try {
      outcome = await this.runners.for(agent.kind).run({
        target: targetOf(agent),
        agentName: agent.name,
        assignment,
        signal,
        progress: async (note) => {
          if (!(await this.report({ ...base, state: 'working', content: note }))) {
            running.controller.abort(new Error('the scheduler refused a progress report'));
          }
        },
        askGroup: async (question) => {
          // Listen before asking, so an answer posted right after the question cannot slip past.
          const answered = this.answers.waitForAnswer(assignment.groupId, agent.id, signal);
          answered.catch(() => undefined);
          await this.report({ ...base, state: 'input-required', content: question });
          const answer = await answered;
          await this.report({ ...base, state: 'working', content: `Answer passed on to ${agent.name}` });
          return answer;
        },
      });
      this.reachability.markReachable(agent.id);
    } catch (error) {
      if (running.controller.signal.aborted) return; // canceled: the scheduler no longer wants a report
      const reason = signal.aborted ? 'the task deadline passed' : describeError(error);
      if (error instanceof EndpointCallError && error.retryable) this.reachability.markUnreachable(agent.id, reason);
      outcome = { state: 'failed', content: `${agent.name} (${agent.kind} endpoint ${agent.url}): ${reason}` };
    }
    if (outcome.state === 'pending' || running.controller.signal.aborted) return;
    await this.report({ ...base, state: outcome.state, content: outcome.content, usage: outcome.usage });
  }

  /**
   * Sends a report, retrying while the scheduler is unreachable. False only when the scheduler refuses it (the
   * task was canceled or finished: INVALID_STATE, NOT_FOUND), which tells the caller to stop.
   */
  private async report(request: ReportTaskV1Request): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.request(ReportTaskV1, request);
        return true;
      } catch (error) {
        const contractError = toContractError(error);
        if (!contractError.retryable) {
          this.logger.log(`Report ${request.state} for task ${request.taskId} refused: ${contractError.message}`);
          return false;
        }
        if (attempt >= REPORT_ATTEMPTS || this.stopping) {
          this.logger.warn(
            `Report ${request.state} for task ${request.taskId} not delivered: ${contractError.message}`,
          );
          return true;
        }
        await new Promise((resolve) => setTimeout(resolve, REPORT_BACKOFF_MS[attempt - 1] ?? 3000));
      }
    }
  }

  onApplicationShutdown(): void {
    this.stopping = true;
    for (const agentId of [...this.channels.keys()]) this.stopServing(agentId);
    // The remote work is canceled where possible; the scheduler's deadline takes care of the tasks.
    for (const task of this.tasks.values()) task.controller.abort(new Error('the adapters service is shutting down'));
  }
}
