import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import {
  AssignTaskV1,
  HeartbeatAgentV1,
  RegisterAgentV1,
  ReportTaskV1,
  subjectFor,
  type RegisterAgentV1Response,
  type TaskAssignmentV1Request,
} from '@ioa/contracts';

/** A task as the worker received it, and whether the test has let it finish yet. */
export interface ReceivedTask {
  taskId: string;
  goalId: string;
  receivedAt: number;
  reported: boolean;
}

/**
 * An external agent as anyone would write one: a bare NATS client and JSON (nothing of ours but the contract's
 * constants). It acknowledges each task at once, reports `working`, and then holds it until the test calls
 * `complete` — so a fault can be injected while a task is known to be running. With `autoComplete` it reports the
 * result right away. `die()` drops its connection without a word, as a crashed process would.
 */
export class FaultWorker {
  readonly tasks: ReceivedTask[] = [];
  autoComplete = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private dead = false;

  private constructor(
    private readonly connection: NatsConnection,
    readonly id: string,
    readonly name: string,
  ) {}

  /** `identity`: how it authenticates (the fault stack's broker requires credentials). */
  static async join(
    natsUrl: string,
    name: string,
    skill: string,
    identity: Partial<ConnectionOptions> = {},
  ): Promise<FaultWorker> {
    const connection = await connect({
      servers: natsUrl,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      ...identity,
    });
    const registered = await call<RegisterAgentV1Response>(connection, RegisterAgentV1.subject, {
      name,
      description: `${skill}. A test agent of the fault suite.`,
      owner: 'ioa-fault-suite',
      skills: [{ id: 'work', name: skill, description: skill, tags: ['fault-suite'], examples: [skill] }],
      endpoint: { kind: 'nats' },
    });
    const worker = new FaultWorker(connection, registered.agent.id, name);
    worker.serve();
    worker.beat(Math.max(500, (registered.heartbeatTtlSeconds * 1000) / 4));
    return worker;
  }

  /** Heartbeats every `periodMs`; a failed one (the registry is down) is retried soon, as a careful agent would. */
  private beat(periodMs: number): void {
    if (this.dead) return;
    this.heartbeat = setTimeout(() => {
      call(this.connection, HeartbeatAgentV1.subject, { id: this.id }).then(
        () => this.beat(periodMs),
        () => this.beat(250),
      );
    }, periodMs);
  }

  private serve(): void {
    this.connection.subscribe(subjectFor(AssignTaskV1, this.id), {
      callback: (error, message) => {
        if (error) return;
        const assignment = JSON.parse(new TextDecoder().decode(message.data)) as TaskAssignmentV1Request;
        message.respond(JSON.stringify({ ok: true, data: { accepted: true } }));
        // A redelivered assignment (the scheduler retries until acknowledged) is the same task.
        let task = this.tasks.find((known) => known.taskId === assignment.taskId);
        if (!task) {
          task = { taskId: assignment.taskId, goalId: assignment.goalId, receivedAt: Date.now(), reported: false };
          this.tasks.push(task);
          void this.report(task.taskId, 'working', 'started').catch(() => undefined);
        }
        if (this.autoComplete) void this.complete(task.taskId).catch(() => undefined);
      },
    });
  }

  /** Reports the task completed, retrying while the platform is still recovering (UNAVAILABLE, TIMEOUT). */
  async complete(taskId: string, timeoutMs = 60_000): Promise<void> {
    const task = this.tasks.find((known) => known.taskId === taskId);
    if (!task || task.reported) return;
    task.reported = true;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.report(taskId, 'completed', `Result of ${taskId} from ${this.name}.`);
        return;
      } catch (error) {
        const retryable = error instanceof ReplyError ? error.retryable : true;
        if (!retryable || Date.now() > deadline) throw error;
        await new Promise((wake) => setTimeout(wake, 250));
      }
    }
  }

  taskOf(goalId: string): ReceivedTask | undefined {
    return this.tasks.find((task) => task.goalId === goalId);
  }

  private report(taskId: string, state: 'working' | 'completed', content: string): Promise<unknown> {
    return call(this.connection, ReportTaskV1.subject, { taskId, agentId: this.id, state, content });
  }

  /** Gone without a word: no deregistration, no more heartbeats, the connection dropped. */
  async die(): Promise<void> {
    clearTimeout(this.heartbeat);
    this.dead = true;
    await this.connection.close();
  }

  async leave(): Promise<void> {
    await this.die();
  }
}

export class ReplyError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(`${code}: ${message}`);
  }
}

async function call<T>(connection: NatsConnection, subject: string, body: unknown): Promise<T> {
  const reply = await connection.request(subject, JSON.stringify(body), { timeout: 5000 });
  const envelope = JSON.parse(new TextDecoder().decode(reply.data)) as {
    ok: boolean;
    data?: T;
    error?: { code: string; message: string; retryable: boolean };
  };
  if (!envelope.ok) {
    throw new ReplyError(envelope.error?.code ?? 'UNKNOWN', envelope.error?.message ?? '', !!envelope.error?.retryable);
  }
  return envelope.data as T;
}
