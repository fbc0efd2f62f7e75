import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  AssignTaskV1,
  ReportTaskV1,
  subjectFor,
  SubmitGoalV1,
  TaskAssignmentV1Request,
  TaskCanceledV1,
  TaskCanceledV1Event,
  type ModelUsageV1,
  type ReportTaskV1Request,
  type TaskAssignmentV1Response,
} from '@ioa/contracts';
import { ContractClient, ContractResponder, toContractError, type ServedSubject } from '@ioa/messaging';
import {
  addUsage,
  callFor,
  LANGUAGE_MODEL,
  ModelDecisionError,
  TaskDelegatePurpose,
  type LanguageModel,
} from '@ioa/llm';
import { agentHostConfig, type AgentHostConfig } from '../agent-host.config.js';
import { HOSTED_AGENTS, type HostedAgent, type TaskOutcome } from '../agents/hosted-agent.js';
import { AgentRegistrationService } from '../registration/agent-registration.service.js';
import { TaskQueue } from './task-queue.js';

/** Replicas of agent-host share each agent's task subject; this is their queue group. */
export const TASK_QUEUE_GROUP = 'agent-host';
const REPORT_ATTEMPTS = 4;
const REPORT_BACKOFF_MS = [200, 1000, 3000];

interface RunningTask {
  agent: HostedAgent;
  assignment: TaskAssignmentV1Request;
  controller: AbortController;
  started: boolean;
}

interface AgentChannel {
  agentId: string;
  queue: TaskQueue;
  subscriptions: ServedSubject[];
}

/**
 * Serves the task subjects of the hosted agents. An assignment is validated and acknowledged at once; the work
 * runs in the background (per agent at most `concurrency` at a time, the rest queued), and is reported through
 * `ReportTaskV1`: `working`, then `completed` / `failed` / `rejected`. Nothing here waits on another task, so one
 * group's slow work never holds up another group.
 *
 * Each agent's own subjects are subscribed — never a wildcard — so tasks of external agents are never answered
 * here. Assignments use the queue group (one replica takes each); cancellations are heard by every replica, since
 * any of them may run the task.
 */
@Injectable()
export class TaskDispatchService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(TaskDispatchService.name);
  private readonly channels = new Map<string, AgentChannel>();
  private readonly tasks = new Map<string, RunningTask>();
  private stopping = false;

  constructor(
    private readonly responder: ContractResponder,
    private readonly client: ContractClient,
    private readonly registration: AgentRegistrationService,
    @Inject(HOSTED_AGENTS) private readonly agents: HostedAgent[],
    @Inject(LANGUAGE_MODEL) private readonly model: LanguageModel,
    @Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig,
  ) {}

  onModuleInit(): void {
    this.registration.onRegistered((agent, agentId) => this.serve(agent, agentId));
  }

  /** Tasks accepted and not finished (running or queued), for tests and health. */
  activeTaskIds(): string[] {
    return [...this.tasks.keys()];
  }

  private serve(agent: HostedAgent, agentId: string): void {
    const previous = this.channels.get(agent.name);
    if (previous?.agentId === agentId) return;
    for (const subscription of previous?.subscriptions ?? []) subscription.unsubscribe();
    const queue = previous?.queue ?? new TaskQueue(agent.concurrency ?? this.config.taskConcurrency);
    // Validation, bounds, the error envelope and the reply itself are the shared receive path's (ContractResponder).
    const subscriptions = [
      this.responder.serve(
        AssignTaskV1,
        subjectFor(AssignTaskV1, agentId),
        (assignment) => this.onAssignTask(agent, agentId, assignment),
        { queue: TASK_QUEUE_GROUP },
      ),
      this.responder.listen(TaskCanceledV1, subjectFor(TaskCanceledV1, agentId), (event) => this.onTaskCanceled(event)),
    ];
    this.channels.set(agent.name, { agentId, queue, subscriptions });
  }

  private onAssignTask(
    agent: HostedAgent,
    agentId: string,
    assignment: TaskAssignmentV1Request,
  ): TaskAssignmentV1Response {
    if (assignment.agentId !== agentId) {
      return { accepted: false, reason: `This subject serves agent ${agentId}, not ${assignment.agentId}` };
    }
    if (this.stopping) return { accepted: false, reason: 'agent-host is shutting down' };
    // A dispatch retried after a lost ack must not start the task twice.
    if (!this.tasks.has(assignment.taskId)) {
      const task: RunningTask = { agent, assignment, controller: new AbortController(), started: false };
      this.tasks.set(assignment.taskId, task);
      this.channels.get(agent.name)?.queue.push(assignment.taskId, () => this.execute(task));
    }
    return { accepted: true };
  }

  private onTaskCanceled(event: TaskCanceledV1Event): void {
    const task = this.tasks.get(event.taskId);
    if (!task) return;
    this.logger.log(`Task ${event.taskId} of ${task.agent.name} canceled: ${event.reason}`);
    task.controller.abort(new Error(event.reason));
    if (!task.started) {
      this.channels.get(task.agent.name)?.queue.remove(event.taskId);
      this.tasks.delete(event.taskId);
    }
  }

  private async execute(task: RunningTask): Promise<void> {
    const { assignment, agent, controller } = task;
    task.started = true;
    try {
      if (controller.signal.aborted) return;
      const accepted = await this.report({
        taskId: assignment.taskId,
        agentId: assignment.agentId,
        state: 'working',
        content: `${agent.name} started the task`,
      });
      if (!accepted || controller.signal.aborted) return;
      let usage: ModelUsageV1 | undefined;
      if (assignment.depth < assignment.maxDepth) {
        const delegation = await this.delegate(task);
        usage = delegation.usage;
        if (delegation.delegated) return; // the scheduler completes the task when the sub-team concludes
      }
      let outcome: TaskOutcome;
      try {
        outcome = await agent.run({ assignment, signal: controller.signal });
      } catch (error) {
        outcome = {
          state: 'failed',
          content: `${agent.name} failed: ${(error as Error).message}`,
          usage: error instanceof ModelDecisionError ? error.usage : undefined,
        };
      }
      if (controller.signal.aborted) return; // canceled: the scheduler no longer wants a report
      await this.report({
        taskId: assignment.taskId,
        agentId: assignment.agentId,
        state: outcome.state,
        content: outcome.content,
        usage: addUsage(usage, outcome.usage),
      });
    } finally {
      this.tasks.delete(assignment.taskId);
    }
  }

  /**
   * Asks the model whether to form a sub-team (offline: only when the brief asks for one). Delegating submits a
   * child goal with `parentTaskId` and reports the task `working`; nothing waits for the child.
   */
  private async delegate(task: RunningTask): Promise<{ delegated: boolean; usage?: ModelUsageV1 }> {
    const { assignment, agent } = task;
    const card = agent.card(this.config.owner);
    let decision;
    try {
      decision = await this.model.decide(
        callFor(TaskDelegatePurpose, {
          agent: {
            agentId: assignment.agentId,
            name: agent.name,
            description: card.description,
            skills: card.skills.map((skill) => ({
              name: skill.name,
              description: skill.description,
              tags: skill.tags,
            })),
          },
          brief: assignment.brief,
          depth: assignment.depth,
          maxDepth: assignment.maxDepth,
        }),
      );
    } catch (error) {
      this.logger.warn(
        `Delegation decision for task ${assignment.taskId} failed; doing it ourselves: ${(error as Error).message}`,
      );
      return { delegated: false, usage: error instanceof ModelDecisionError ? error.usage : undefined };
    }
    if (!decision.output.delegate || !decision.output.goal) return { delegated: false, usage: decision.usage };
    try {
      const child = await this.client.request(SubmitGoalV1, {
        goal: decision.output.goal,
        parentTaskId: assignment.taskId,
        maxDepth: assignment.maxDepth,
        maxTurns: 12,
        budget: {},
      });
      await this.report({
        taskId: assignment.taskId,
        agentId: assignment.agentId,
        state: 'working',
        content: `Formed a sub-team for this task (goal ${child.id}): ${decision.output.reason}`,
        usage: decision.usage,
      });
      return { delegated: true };
    } catch (error) {
      this.logger.warn(
        `Sub-team for task ${assignment.taskId} refused; doing it ourselves: ${(error as Error).message}`,
      );
      return { delegated: false, usage: decision.usage };
    }
  }

  /**
   * Sends a report, retrying while the scheduler is unreachable. False only when the scheduler refuses it (the task
   * was canceled or finished meanwhile: INVALID_STATE, NOT_FOUND…), which tells the caller to stop working on it.
   * An unreachable scheduler is not a refusal: the work goes on and the final report tries again.
   */
  private async report(request: ReportTaskV1Request): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.request(ReportTaskV1, request);
        return true;
      } catch (error) {
        const contractError = toContractError(error);
        if (!contractError.retryable) {
          const level = contractError.code === 'INVALID_STATE' ? 'log' : 'warn';
          this.logger[level](`Report ${request.state} for task ${request.taskId} refused: ${contractError.message}`);
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
    for (const channel of this.channels.values()) {
      for (const subscription of channel.subscriptions) subscription.unsubscribe();
    }
    // Running code is killed; the scheduler's deadline (or re-assignment) takes care of the tasks.
    for (const task of this.tasks.values()) task.controller.abort(new Error('agent-host is shutting down'));
  }
}
