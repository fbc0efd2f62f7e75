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
import PQueue from 'p-queue';
import pRetry from 'p-retry';
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
import type { OwnedWork } from '../ownership/owned-work.repository.js';
import { WorkLeaseService } from '../ownership/work-lease.service.js';
import { AgentRegistrationService } from '../registration/agent-registration.service.js';

/** Replicas of agent-host share each agent's task subject; this is their queue group. */
export const TASK_QUEUE_GROUP = 'agent-host';
/** A report is sent up to 4 times while the scheduler is unreachable, 200 ms, 1 s and 3 s apart. */
const REPORT_RETRY = { retries: 3, minTimeout: 200, factor: 5, maxTimeout: 3000, randomize: false } as const;

/**
 * A task's key in the ownership table: per assignee, since the scheduler may move a task to another agent (also
 * hosted here) under the same id, and that assignment must be owned and run in its own right.
 */
function ownedTaskKey(agentId: string, taskId: string): string {
  return `${agentId}:${taskId}`;
}

interface RunningTask {
  agent: HostedAgent;
  assignment: TaskAssignmentV1Request;
  /** Aborted on cancellation (or shutdown): the work stops and nothing is reported. */
  controller: AbortController;
  /** Aborted only to take a task out of its queue before it starts. */
  waiting: AbortController;
  started: boolean;
}

interface AgentChannel {
  agentId: string;
  subscriptions: ServedSubject[];
}

/**
 * Serves the task subjects of the hosted agents. An assignment is validated, owned durably (a row in
 * `agent_host.owned_work`, committed before the acknowledgement goes out) and acknowledged; the work runs in the
 * background (per agent at most `concurrency` at a time, the rest queued), and is reported through `ReportTaskV1`:
 * `working`, then `completed` / `failed` / `rejected`. Nothing here waits on another task, so one group's slow work
 * never holds up another group. The row goes when the task is finished or canceled; a task whose replica died is
 * taken over through its lease (`WorkLeaseService`) and run again from the start.
 *
 * Each agent's own subjects are subscribed — never a wildcard — so tasks of external agents are never answered
 * here. Assignments use the queue group (one replica takes each); cancellations are heard by every replica, since
 * any of them may run the task.
 */
@Injectable()
export class TaskDispatchService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(TaskDispatchService.name);
  private readonly channels = new Map<string, AgentChannel>();
  private readonly queues = new Map<string, PQueue>();
  /** Accepted and not finished, by owned key (assignee and task). */
  private readonly tasks = new Map<string, RunningTask>();
  private stopping = false;

  constructor(
    private readonly responder: ContractResponder,
    private readonly client: ContractClient,
    private readonly registration: AgentRegistrationService,
    @Inject(HOSTED_AGENTS) private readonly agents: HostedAgent[],
    @Inject(LANGUAGE_MODEL) private readonly model: LanguageModel,
    @Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig,
    private readonly lease: WorkLeaseService,
  ) {
    for (const agent of agents) {
      this.queues.set(agent.name, new PQueue({ concurrency: agent.concurrency ?? config.taskConcurrency }));
    }
  }

  onModuleInit(): void {
    this.registration.onRegistered((agent, agentId) => this.serve(agent, agentId));
    this.lease.resumeWith(
      'task',
      () => this.agents.map((agent) => agent.name),
      (work) => void this.resume(work),
    );
  }

  /** Tasks accepted and not finished (running or queued), for tests and health. */
  activeTaskIds(): string[] {
    return [...this.tasks.values()].map((task) => task.assignment.taskId);
  }

  private serve(agent: HostedAgent, agentId: string): void {
    const previous = this.channels.get(agent.name);
    if (previous?.agentId === agentId) return;
    for (const subscription of previous?.subscriptions ?? []) subscription.unsubscribe();
    // Validation, bounds, the error envelope and the reply itself are the shared receive path's (ContractResponder).
    const subscriptions = [
      this.responder.serve(
        AssignTaskV1,
        subjectFor(AssignTaskV1, agentId),
        (assignment) => this.onAssignTask(agent, agentId, assignment),
        { queue: TASK_QUEUE_GROUP },
      ),
      this.responder.listen(TaskCanceledV1, subjectFor(TaskCanceledV1, agentId), (event) =>
        this.onTaskCanceled(agentId, event),
      ),
    ];
    this.channels.set(agent.name, { agentId, subscriptions });
  }

  private async onAssignTask(
    agent: HostedAgent,
    agentId: string,
    assignment: TaskAssignmentV1Request,
  ): Promise<TaskAssignmentV1Response> {
    if (assignment.agentId !== agentId) {
      return { accepted: false, reason: `This subject serves agent ${agentId}, not ${assignment.agentId}` };
    }
    if (this.stopping) return { accepted: false, reason: 'agent-host is shutting down' };
    // A dispatch retried after a lost ack must not start the task twice: running here, or owned by a replica (which
    // runs it, or whose lease runs out and hands it to a live one).
    const key = ownedTaskKey(agentId, assignment.taskId);
    if (this.tasks.has(key)) return { accepted: true };
    // Owned before acknowledged: when the row cannot be written the error goes back and the scheduler retries.
    if (await this.lease.own('task', key, agent.name, assignment)) this.start(agent, assignment);
    return { accepted: true };
  }

  /** Runs a task taken over from a replica that died (or from this one before a restart). */
  private async resume(work: OwnedWork): Promise<void> {
    const agent = this.agents.find((candidate) => candidate.name === work.scope);
    const assignment = work.payload as TaskAssignmentV1Request;
    if (!agent || this.tasks.has(work.workKey) || this.stopping) return;
    if (work.claims > this.config.ownership.maxClaims) {
      // Taken on again and again without finishing (its replicas died, or its report never got through): stop the
      // loop and tell the scheduler why.
      await this.report({
        taskId: assignment.taskId,
        agentId: assignment.agentId,
        state: 'failed',
        content: `${agent.name} took this task on ${work.claims - 1} times without finishing it (agent-host stopped each time)`,
      });
      await this.lease.release('task', work.workKey);
      return;
    }
    this.start(agent, assignment);
  }

  private start(agent: HostedAgent, assignment: TaskAssignmentV1Request): void {
    const task: RunningTask = {
      agent,
      assignment,
      controller: new AbortController(),
      waiting: new AbortController(),
      started: false,
    };
    this.tasks.set(ownedTaskKey(assignment.agentId, assignment.taskId), task);
    // The queue rejects only when the task is taken out before it starts (canceled); `execute` catches the rest.
    this.queues
      .get(agent.name)
      ?.add(() => this.execute(task), { signal: task.waiting.signal })
      .catch(() => undefined);
  }

  private async onTaskCanceled(agentId: string, event: TaskCanceledV1Event): Promise<void> {
    // Every replica hears it; the one holding the row (running or not, even a dead one's) lets it go.
    const key = ownedTaskKey(agentId, event.taskId);
    await this.lease.release('task', key);
    const task = this.tasks.get(key);
    if (!task) return;
    this.logger.log(`Task ${event.taskId} of ${task.agent.name} canceled: ${event.reason}`);
    task.controller.abort(new Error(event.reason));
    if (!task.started) {
      task.waiting.abort(new Error(event.reason));
      this.tasks.delete(key);
    }
  }

  private async execute(task: RunningTask): Promise<void> {
    const { assignment, agent, controller } = task;
    task.started = true;
    let finished = false;
    try {
      if (controller.signal.aborted) return;
      const started = await this.report({
        taskId: assignment.taskId,
        agentId: assignment.agentId,
        state: 'working',
        content: `${agent.name} started the task`,
      });
      if (started === 'refused') {
        finished = true; // the scheduler refused it (canceled, finished, unknown): nobody should resume it
        return;
      }
      if (controller.signal.aborted) return;
      let usage: ModelUsageV1 | undefined;
      if (assignment.depth < assignment.maxDepth) {
        const delegation = await this.delegate(task);
        usage = delegation.usage;
        if (delegation.delegated) {
          finished = true; // the scheduler completes the task when the sub-team concludes
          return;
        }
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
      const reported = await this.report({
        taskId: assignment.taskId,
        agentId: assignment.agentId,
        state: outcome.state,
        content: outcome.content,
        usage: addUsage(usage, outcome.usage),
      });
      if (reported === 'undelivered') {
        // The result must not be lost with the scheduler unreachable: the next sweep takes the task on again (here
        // or on a replica), and the number of claims bounds how often.
        await this.lease.handBack('task', ownedTaskKey(assignment.agentId, assignment.taskId));
        return;
      }
      finished = true;
    } finally {
      this.tasks.delete(ownedTaskKey(assignment.agentId, assignment.taskId));
      // Canceled tasks were released by the cancellation. Work cut short by a shutdown stays owned, for a replica
      // (or this one restarted) to resume.
      if (finished) await this.lease.release('task', ownedTaskKey(assignment.agentId, assignment.taskId));
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
      const child = await this.client.request(
        SubmitGoalV1,
        {
          goal: decision.output.goal,
          parentTaskId: assignment.taskId,
          maxDepth: assignment.maxDepth,
          maxTurns: 12,
          budget: {},
        },
        // A task resumed after a crash asks again; the scheduler answers with the sub-team it already formed.
        { idempotencyKey: `sub-team:${assignment.taskId}` },
      );
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
   * Sends a report, retrying while the scheduler is unreachable. `refused` when the scheduler refuses it (the task
   * was canceled or finished meanwhile: INVALID_STATE, NOT_FOUND…), which tells the caller to stop working on it.
   * An unreachable scheduler is not a refusal (`undelivered`): the work goes on and the final report tries again.
   */
  private async report(request: ReportTaskV1Request): Promise<'delivered' | 'refused' | 'undelivered'> {
    try {
      await pRetry(() => this.client.request(ReportTaskV1, request), {
        ...REPORT_RETRY,
        shouldRetry: ({ error }) => toContractError(error).retryable && !this.stopping,
      });
      return 'delivered';
    } catch (error) {
      const contractError = toContractError(error);
      if (!contractError.retryable) {
        const level = contractError.code === 'INVALID_STATE' ? 'log' : 'warn';
        this.logger[level](`Report ${request.state} for task ${request.taskId} refused: ${contractError.message}`);
        return 'refused';
      }
      this.logger.warn(`Report ${request.state} for task ${request.taskId} not delivered: ${contractError.message}`);
      return 'undelivered';
    }
  }

  onApplicationShutdown(): void {
    this.stopping = true;
    for (const channel of this.channels.values()) {
      for (const subscription of channel.subscriptions) subscription.unsubscribe();
    }
    // Running code is killed; the tasks stay owned and are resumed by a replica or after the restart.
    for (const task of this.tasks.values()) {
      task.waiting.abort(new Error('agent-host is shutting down'));
      task.controller.abort(new Error('agent-host is shutting down'));
    }
  }
}
