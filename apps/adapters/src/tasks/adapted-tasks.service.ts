import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import {
  AssignTaskV1,
  ContractError,
  ReportTaskV1,
  subjectFor,
  TaskCanceledV1,
  type ReportTaskV1Request,
  type TaskAssignmentV1Request,
  type TaskAssignmentV1Response,
  type TaskCanceledV1Event,
} from '@ioa/contracts';
import {
  ContractClient,
  ContractResponder,
  NATS_CONNECTION,
  toContractError,
  type ServedSubject,
} from '@ioa/messaging';
import { AdaptedAgentEntity } from '../agents/adapted-agent.entity.js';
import { ReachabilityBook } from '../agents/reachability.js';
import type { OwnedTask } from '../ownership/adapted-task.repository.js';
import { TaskLeasesService } from '../ownership/task-leases.service.js';
import { AgentTargets } from '../secrets/agent-targets.js';
import { AdaptersStoppingError, type TaskCheckpoint, type TaskOutcome } from './endpoint-runner.js';
import { EndpointRunners } from './endpoint-runners.js';
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

/** How a report ended: taken, refused (the task was canceled or finished), or not delivered (scheduler away). */
type ReportResult = 'delivered' | 'refused' | 'undelivered';

/**
 * Speaks for adapted agents exactly as a native agent would: serves `ioa.agent.<id>.task.v1` (in the `adapters`
 * queue group, so one replica takes each task) through the shared receive path (`ContractResponder`: validation,
 * bounds, error envelope). An assignment is owned durably (`adapters.adapted_tasks`, committed before the
 * acknowledgement goes out), run on the endpoint in the background and reported through `ReportTaskV1`: `working`,
 * then the outcome, or `failed` with the reason the call failed. The runner checkpoints how far the remote work got;
 * a task whose replica died is taken over through its lease and carried on from there (`resume`).
 * `ioa.agent.<id>.task-canceled.v1` is heard by every replica: the row goes, and the run is aborted, which cancels
 * the remote work where the protocol can (A2A CancelTask, the MCP request, the HTTP request).
 */
@Injectable()
export class AdaptedTasksService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AdaptedTasksService.name);
  private readonly channels = new Map<string, ServedSubject[]>();
  private readonly tasks = new Map<string, RunningTask>();
  private stopping = false;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly responder: ContractResponder,
    private readonly client: ContractClient,
    private readonly runners: EndpointRunners,
    private readonly answers: GroupAnswers,
    private readonly reachability: ReachabilityBook,
    private readonly leases: TaskLeasesService,
    private readonly targets: AgentTargets,
    @InjectRepository(AdaptedAgentEntity) private readonly agents: Repository<AdaptedAgentEntity>,
  ) {}

  onModuleInit(): void {
    this.leases.resumeWith((task) => void this.resume(task));
  }

  /**
   * Serves every stored agent's task subjects before the service reports itself started, so that a task sent right
   * after a (re)start finds a responder rather than waiting for the first presence round.
   */
  async onApplicationBootstrap(): Promise<void> {
    try {
      for (const agent of await this.agents.find({ select: { id: true } })) this.serve(agent.id);
      await this.connection.flush();
    } catch (error) {
      // The presence rounds serve them as soon as the database answers.
      this.logger.warn(`Serving the stored agents at boot failed: ${(error as Error).message}`);
    }
  }

  /** Starts serving an agent's task subjects (once per agent id). */
  serve(agentId: string): void {
    if (this.channels.has(agentId) || this.stopping) return;
    this.channels.set(agentId, [
      this.responder.serve(
        AssignTaskV1,
        subjectFor(AssignTaskV1, agentId),
        (assignment) => this.onAssignTask(agentId, assignment),
        { queue: ADAPTERS_QUEUE_GROUP },
      ),
      this.responder.listen(TaskCanceledV1, subjectFor(TaskCanceledV1, agentId), (event) => this.onTaskCanceled(event)),
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

  private async onAssignTask(agentId: string, assignment: TaskAssignmentV1Request): Promise<TaskAssignmentV1Response> {
    if (assignment.agentId !== agentId) {
      return { accepted: false, reason: `This subject serves agent ${agentId}, not ${assignment.agentId}` };
    }
    if (this.stopping) return { accepted: false, reason: 'The adapters service is shutting down' };
    const agent = await this.agents.findOneBy({ id: agentId }).catch(() => null);
    if (!agent) {
      // Unknown here (deregistered meanwhile, or the database is unreachable): no ack, so the scheduler retries.
      throw new ContractError('UNAVAILABLE', `Agent ${agentId} is not served now`, undefined, true);
    }
    // A dispatch retried after a lost ack must not start the task twice: running here, or owned by a replica (which
    // runs it, or whose lease runs out and hands it to a live one).
    if (this.tasks.has(assignment.taskId)) return { accepted: true };
    // Owned before acknowledged: when the row cannot be written the error goes back and the scheduler retries.
    if (await this.leases.own(assignment)) this.start(agent, assignment, {});
    return { accepted: true };
  }

  /** Carries on a task taken over from a replica that died (or from this one before a restart). */
  private async resume(owned: OwnedTask): Promise<void> {
    const { assignment } = owned;
    if (this.tasks.has(assignment.taskId) || this.stopping) return;
    const agent = await this.agents.findOneBy({ id: assignment.agentId });
    if (!agent || owned.claims > this.leases.maxClaims) {
      // Deregistered meanwhile, or taken on again and again without finishing: stop and tell the scheduler why.
      const reason = agent
        ? `${agent.name} was taken on ${owned.claims - 1} times without finishing (the adapters service stopped each time)`
        : `Agent ${assignment.agentId} is no longer adapted (deregistered while its task was in flight)`;
      const reported = await this.report({
        taskId: assignment.taskId,
        agentId: assignment.agentId,
        state: 'failed',
        content: reason,
      });
      if (reported !== 'undelivered') await this.leases.release(assignment.taskId);
      return;
    }
    this.start(agent, assignment, owned.checkpoint);
  }

  private start(agent: AdaptedAgentEntity, assignment: TaskAssignmentV1Request, checkpoint: TaskCheckpoint): void {
    const running: RunningTask = { agentId: agent.id, controller: new AbortController() };
    this.tasks.set(assignment.taskId, running);
    void this.execute(agent, assignment, checkpoint, running).finally(() => this.tasks.delete(assignment.taskId));
  }

  private async onTaskCanceled(event: TaskCanceledV1Event): Promise<void> {
    // Every replica hears it; the one holding the row (running or not, even a dead one's) lets it go.
    await this.leases.release(event.taskId);
    const task = this.tasks.get(event.taskId);
    if (!task) return;
    this.logger.log(`Task ${event.taskId} canceled: ${event.reason}`);
    task.controller.abort(new Error(`canceled: ${event.reason}`));
  }

  private async execute(
    agent: AdaptedAgentEntity,
    assignment: TaskAssignmentV1Request,
    resumedFrom: TaskCheckpoint,
    running: RunningTask,
  ): Promise<void> {
    const base = { taskId: assignment.taskId, agentId: agent.id };
    const deadlineMs = Math.max(0, Date.parse(assignment.deadline) - Date.now());
    const signal = AbortSignal.any([running.controller.signal, AbortSignal.timeout(deadlineMs)]);
    const resumed = resumedFrom.a2a !== undefined || resumedFrom.mcpCalls !== undefined;
    const started = await this.report({
      ...base,
      state: 'working',
      content: resumed
        ? `${agent.name} (${agent.kind} endpoint) is followed again after an adapters restart`
        : `${agent.name} (${agent.kind} endpoint) took the task`,
    });
    if (started === 'refused') return void (await this.leases.release(assignment.taskId));
    if (running.controller.signal.aborted) return void (await this.stopped(running, assignment.taskId));
    let outcome: TaskOutcome;
    let checkpoint = resumedFrom;
    try {
      outcome = await this.runners.for(agent.kind).run({
        target: this.targets.of(agent),
        agentName: agent.name,
        assignment,
        signal,
        resumedFrom,
        checkpoint: async (next) => {
          checkpoint = { ...checkpoint, ...next };
          await this.leases.checkpoint(assignment.taskId, checkpoint);
        },
        progress: async (note) => {
          if ((await this.report({ ...base, state: 'working', content: note })) === 'refused') {
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
      if (running.controller.signal.aborted) return void (await this.stopped(running, assignment.taskId));
      const reason = signal.aborted ? 'the task deadline passed' : describeError(error);
      if (error instanceof EndpointCallError && error.retryable) this.reachability.markUnreachable(agent.id, reason);
      outcome = { state: 'failed', content: `${agent.name} (${agent.kind} endpoint ${agent.url}): ${reason}` };
    }
    if (running.controller.signal.aborted) return void (await this.stopped(running, assignment.taskId));
    // A webhook that answered 202 completes the task through its callback (`webhook_tasks`), on any replica.
    if (outcome.state === 'pending') return void (await this.leases.release(assignment.taskId));
    const reported = await this.report({
      ...base,
      state: outcome.state,
      content: outcome.content,
      usage: outcome.usage,
    });
    // The result must not be lost with the scheduler away: the next sweep takes the task on again.
    if (reported === 'undelivered') await this.leases.handBack(assignment.taskId);
    else await this.leases.release(assignment.taskId);
  }

  /**
   * A run aborted from here. Canceled (or a report refused): nobody wants a report, and nobody resumes it. This
   * replica stopping: the row stays, for the replica (or this one restarted) that resumes the task.
   */
  private async stopped(running: RunningTask, taskId: string): Promise<void> {
    if (!(running.controller.signal.reason instanceof AdaptersStoppingError)) await this.leases.release(taskId);
  }

  /** Sends a report, retrying while the scheduler is unreachable. */
  private async report(request: ReportTaskV1Request): Promise<ReportResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.request(ReportTaskV1, request);
        return 'delivered';
      } catch (error) {
        const contractError = toContractError(error);
        if (!contractError.retryable) {
          this.logger.log(`Report ${request.state} for task ${request.taskId} refused: ${contractError.message}`);
          return 'refused';
        }
        if (attempt >= REPORT_ATTEMPTS || this.stopping) {
          this.logger.warn(
            `Report ${request.state} for task ${request.taskId} not delivered: ${contractError.message}`,
          );
          return 'undelivered';
        }
        await new Promise((resolve) => setTimeout(resolve, REPORT_BACKOFF_MS[attempt - 1] ?? 3000));
      }
    }
  }

  onApplicationShutdown(): void {
    this.stopping = true;
    for (const agentId of [...this.channels.keys()]) this.stopServing(agentId);
    // The remote work goes on: the rows stay owned, and a replica (or this one restarted) resumes each task.
    for (const task of this.tasks.values()) task.controller.abort(new AdaptersStoppingError());
  }
}
