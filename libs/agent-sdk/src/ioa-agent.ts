// class-transformer's @Type in the contract classes needs the Reflect metadata API, loaded before they are.
import 'reflect-metadata';
import {
  connect,
  jwtAuthenticator,
  type ConnectionOptions,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import {
  ContractError,
  DeregisterAgentV1,
  DeregisterOwnAgentV1,
  HeartbeatAgentV1,
  HeartbeatOwnAgentV1,
  ProposeMoveV1,
  ProposeOwnMoveV1,
  RegisterAgentV1,
  RegisterOwnAgentV1,
  ReportOwnTaskV1,
  ReportTaskV1,
  AssignTaskV1,
  TaskAssignmentV1Request,
  TaskCanceledV1,
  TaskCanceledV1Event,
  TurnGrantedToAgentV1,
  TurnGrantedV1,
  TurnGrantedV1Event,
  subjectFor,
  type AgentCardV1,
  type MoveV1,
  type RegisterAgentV1Request,
  type ReportTaskV1Request,
  type RequestContract,
} from '@ioa/contracts';
import { inboxPrefixOf, type AgentIdentity } from './agent-identity.js';
import { decodeJson, parsePayload, requestOnContract, respondError, respondOk } from './nats-wire.js';

/**
 * An agent's card as its author writes it: the registration payload, with the fields the platform fills in with
 * defaults (modes, version, metadata) left optional.
 */
export type AgentCardInput = Omit<
  RegisterAgentV1Request,
  'defaultInputModes' | 'defaultOutputModes' | 'version' | 'metadata' | 'skills'
> &
  Partial<Pick<RegisterAgentV1Request, 'defaultInputModes' | 'defaultOutputModes' | 'version' | 'metadata'>> & {
    skills: Array<
      Omit<RegisterAgentV1Request['skills'][number], 'tags' | 'examples'> & { tags?: string[]; examples?: string[] }
    >;
  };

/** What a task handler gets besides the assignment. */
export interface TaskContext {
  /** Aborted when the platform cancels the task (or refuses a report on it), or when the agent stops. */
  readonly signal: AbortSignal;
  /** Reports `working` with a progress note. Resolves once the scheduler has recorded it. */
  progress(note: string): Promise<void>;
}

/**
 * Throw it from a task handler to report the task `rejected` (the agent will not do it) rather than `failed` (it
 * tried and could not).
 */
export class TaskRejectedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'TaskRejectedError';
  }
}

export type TaskHandler = (task: TaskAssignmentV1Request, context: TaskContext) => Promise<string>;
/** Returns the move for this turn; `undefined` lets the turn time out and pass on. */
export type TurnHandler = (turn: TurnGrantedV1Event, context: { signal: AbortSignal }) => Promise<MoveV1 | undefined>;

export interface AgentLogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface IoaAgentOptions {
  /**
   * NATS server URL(s), e.g. `nats://broker.example.org:4222`; by default the identity's `natsUrls`, else the local
   * broker. Ignored when `connection` is given.
   */
  servers?: string | string[];
  /** An existing connection to share; the agent then never closes it. */
  connection?: NatsConnection;
  /**
   * The agent's own NATS identity (`requestAgentIdentity`, or `agentIdentityFromCreds`). With it the agent connects
   * as its own NATS user and acts on its own subjects (`ioa.agent.<id>.register.v1`, `.heartbeat.v1`,
   * `.task.report.v1`, `.move.propose.v1`; turns arrive on `.turn.granted.v1`), which is what a broker with
   * authentication allows an agent. Without it the agent uses the services' subjects, which only a broker without
   * authentication (a test or a lab) lets it use.
   */
  identity?: AgentIdentity;
  card: AgentCardInput;
  onTask: TaskHandler;
  /**
   * Take its own turns in group chats. Giving it registers the card with `metadata.communicator: 'self'`; without
   * it the platform's communicator speaks for the agent.
   */
  onTurn?: TurnHandler;
  /** Per request (registration, heartbeat, report). Default 5000. */
  requestTimeoutMs?: number;
  /** Heartbeats per TTL (default 3: a heartbeat every TTL / 3, so two can be lost before the agent counts as offline). */
  heartbeatsPerTtl?: number;
  /** How long `stop()` lets running tasks finish before reporting them failed. Default 10 000 ms. */
  shutdownGraceMs?: number;
  log?: (entry: AgentLogEntry) => void;
}

const DEFAULT_TIMEOUT_MS = 5000;
/** First retry after 250 ms, doubling up to 5 s: registration waits out a registry that is restarting. */
const REGISTRATION_BACKOFF_MS = { first: 250, max: 5000 };

interface RunningTask {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * An agent on the IoA network: connects, registers its card, keeps it online with heartbeats, serves the tasks
 * addressed to it (acknowledge at once, report progress and the outcome through the scheduler), honours cancels,
 * optionally speaks for itself in group chats, re-registers after a reconnect or when the registry forgot it, and
 * stops gracefully.
 *
 * ```ts
 * const agent = await IoaAgent.start({ servers: 'nats://127.0.0.1:4222', card, onTask: async (task) => 'done' });
 * // …
 * await agent.stop();
 * ```
 */
export class IoaAgent {
  private connection!: NatsConnection;
  private ownsConnection = false;
  private card!: AgentCardV1;
  private ttlSeconds = 30;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private readonly subscriptions: Subscription[] = [];
  private readonly running = new Map<string, RunningTask>();
  /** Task ids already acknowledged: a redelivered assignment is acknowledged again but not run twice. */
  private readonly seenTasks = new Set<string>();
  private stopping = false;
  private reregistering: Promise<void> | undefined;
  private readonly timeoutMs: number;
  private readonly log: (entry: AgentLogEntry) => void;

  private constructor(private readonly options: IoaAgentOptions) {
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.log = options.log ?? (() => undefined);
  }

  /** Connects, registers (retrying while the registry is unreachable) and starts serving. */
  static async start(options: IoaAgentOptions): Promise<IoaAgent> {
    const agent = new IoaAgent(options);
    await agent.begin();
    return agent;
  }

  /** The card as the registry stored it (its `id` addresses the agent's task subjects). */
  get agentCard(): AgentCardV1 {
    return this.card;
  }

  get id(): string {
    return this.card.id;
  }

  get heartbeatTtlSeconds(): number {
    return this.ttlSeconds;
  }

  /** Tasks being worked on right now. */
  get runningTaskIds(): string[] {
    return [...this.running.keys()];
  }

  private async begin(): Promise<void> {
    if (this.options.connection) {
      this.connection = this.options.connection;
    } else {
      const servers = this.options.servers ?? this.options.identity?.natsUrls ?? 'nats://127.0.0.1:4222';
      const identity = this.options.identity;
      const credentials: Partial<ConnectionOptions> = identity
        ? {
            authenticator: jwtAuthenticator(identity.jwt, new TextEncoder().encode(identity.seed)),
            inboxPrefix: inboxPrefixOf(identity),
          }
        : {};
      // Never give up reconnecting: an agent outlives broker restarts and network cuts.
      this.connection = await connect({
        servers,
        name: `ioa-agent:${this.options.card.name}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 1000,
        waitOnFirstConnect: true,
        ...credentials,
      });
      this.ownsConnection = true;
    }
    await this.registerUntilAccepted();
    this.watchConnection();
    this.scheduleHeartbeats();
  }

  private registrationBody(): RegisterAgentV1Request {
    const card = this.options.card;
    const metadata = { ...(card.metadata ?? {}) };
    if (this.options.onTurn) metadata.communicator = 'self';
    return {
      ...card,
      skills: card.skills.map((skill) => ({ ...skill, tags: skill.tags ?? [], examples: skill.examples ?? [] })),
      defaultInputModes: card.defaultInputModes ?? ['text/plain'],
      defaultOutputModes: card.defaultOutputModes ?? ['text/plain'],
      version: card.version ?? '1.0.0',
      metadata,
    };
  }

  /** Registers, retrying retryable failures with backoff; a refusal (invalid card, name taken) is thrown. */
  private async registerUntilAccepted(): Promise<void> {
    let waitMs = REGISTRATION_BACKOFF_MS.first;
    for (;;) {
      try {
        const reply = await this.act(RegisterAgentV1, RegisterOwnAgentV1, this.registrationBody());
        this.adoptCard(reply.agent, reply.heartbeatTtlSeconds);
        // The registry has just made the agent findable: get its task subscriptions live at the server at once.
        await this.connection.flush();
        this.log({ level: 'info', message: `registered as ${reply.agent.name} (${reply.agent.id})` });
        return;
      } catch (error) {
        if (!(error instanceof ContractError) || !error.retryable || this.stopping) throw error;
        this.log({ level: 'warn', message: `registration not answered (${error.message}); retrying` });
        await delay(waitMs);
        waitMs = Math.min(waitMs * 2, REGISTRATION_BACKOFF_MS.max);
      }
    }
  }

  /** Takes the stored card; a new id (the registry forgot the old one) moves the task subscriptions to it. */
  private adoptCard(card: AgentCardV1, ttlSeconds: number): void {
    const idChanged = this.card?.id !== card.id;
    this.card = card;
    this.ttlSeconds = ttlSeconds;
    if (!idChanged) return;
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    this.subscriptions.push(
      this.connection.subscribe(subjectFor(AssignTaskV1, card.id), {
        callback: (_error, message) => void this.onAssignment(message),
      }),
      this.connection.subscribe(subjectFor(TaskCanceledV1, card.id), {
        callback: (_error, message) => void this.onCanceled(message),
      }),
    );
    if (this.options.onTurn) {
      // With an identity, chat delivers the agent's own turns to it; without, the agent filters the stream subject.
      const turns = this.options.identity ? subjectFor(TurnGrantedToAgentV1, card.id) : TurnGrantedV1.subject;
      this.subscriptions.push(
        this.connection.subscribe(turns, {
          callback: (_error, message) => void this.onTurnGranted(message),
        }),
      );
    }
  }

  private scheduleHeartbeats(): void {
    clearTimeout(this.heartbeatTimer);
    if (this.stopping) return;
    const everyMs = (this.ttlSeconds * 1000) / (this.options.heartbeatsPerTtl ?? 3);
    this.heartbeatTimer = setTimeout(() => {
      void this.heartbeat().finally(() => this.scheduleHeartbeats());
    }, everyMs);
  }

  /** One heartbeat; NOT_FOUND (the registry forgot the agent) registers again, as the contract asks. */
  async heartbeat(): Promise<void> {
    if (this.stopping) return;
    try {
      const reply = await this.act(HeartbeatAgentV1, HeartbeatOwnAgentV1, { id: this.card.id });
      this.ttlSeconds = reply.heartbeatTtlSeconds;
    } catch (error) {
      if (error instanceof ContractError && error.code === 'NOT_FOUND') {
        this.log({ level: 'warn', message: 'the registry no longer knows this agent; registering again' });
        await this.reregister();
        return;
      }
      this.log({ level: 'warn', message: `heartbeat failed: ${describe(error)}` });
    }
  }

  private reregister(): Promise<void> {
    this.reregistering ??= this.registerUntilAccepted()
      .catch((error: unknown) => this.log({ level: 'error', message: `registration refused: ${describe(error)}` }))
      .finally(() => (this.reregistering = undefined));
    return this.reregistering;
  }

  /** After a reconnect the agent may have been marked offline meanwhile: say it is alive at once. */
  private watchConnection(): void {
    void (async () => {
      for await (const status of this.connection.status()) {
        if (status.type === 'reconnect') {
          this.log({ level: 'info', message: 'reconnected to NATS; heartbeating now' });
          void this.heartbeat();
        }
      }
    })();
  }

  // -------------------------------------------------------------------------------------------------------------
  // tasks

  private async onAssignment(message: Msg): Promise<void> {
    let task: TaskAssignmentV1Request;
    try {
      task = await parsePayload(TaskAssignmentV1Request, decodeJson(message.data));
    } catch (error) {
      // Malformed input gets a structured error back, and nothing runs.
      respondError(message, error);
      return;
    }
    if (this.stopping) {
      respondOk(message, { accepted: false, reason: 'the agent is shutting down' });
      return;
    }
    respondOk(message, { accepted: true });
    // The scheduler re-delivers when an acknowledgement was lost: acknowledge again, but run the task once.
    if (this.seenTasks.has(task.taskId)) return;
    this.seenTasks.add(task.taskId);
    const controller = new AbortController();
    const done = this.runTask(task, controller).finally(() => this.running.delete(task.taskId));
    this.running.set(task.taskId, { controller, done });
  }

  private async runTask(task: TaskAssignmentV1Request, controller: AbortController): Promise<void> {
    const context: TaskContext = {
      signal: controller.signal,
      progress: (note) => this.report(task, controller, { state: 'working', content: note }),
    };
    let outcome: Pick<ReportTaskV1Request, 'state' | 'content'>;
    try {
      const result = await this.options.onTask(task, context);
      outcome = { state: 'completed', content: result };
    } catch (error) {
      outcome =
        error instanceof TaskRejectedError
          ? { state: 'rejected', content: error.message }
          : { state: 'failed', content: describe(error) };
    }
    // A canceled task is the platform's to close: nothing more is reported on it.
    if (controller.signal.aborted) return;
    await this.report(task, controller, outcome).catch((error: unknown) =>
      this.log({ level: 'error', message: `report on task ${task.taskId} failed: ${describe(error)}` }),
    );
  }

  /**
   * Reports on a task, retrying what may succeed later; INVALID_STATE or NOT_FOUND mean the platform has closed the
   * task, so the handler is told to stop (its signal aborts) and the error is thrown to it.
   */
  private async report(
    task: TaskAssignmentV1Request,
    controller: AbortController,
    outcome: Pick<ReportTaskV1Request, 'state' | 'content'>,
  ): Promise<void> {
    const body: ReportTaskV1Request = { taskId: task.taskId, agentId: this.card.id, ...outcome };
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.act(ReportTaskV1, ReportOwnTaskV1, body);
        return;
      } catch (error) {
        if (error instanceof ContractError && (error.code === 'INVALID_STATE' || error.code === 'NOT_FOUND')) {
          controller.abort(new Error(`the platform closed task ${task.taskId}: ${error.message}`));
          throw error;
        }
        if (!(error instanceof ContractError) || !error.retryable || attempt >= 3) throw error;
        await delay(500 * attempt);
      }
    }
  }

  private async onCanceled(message: Msg): Promise<void> {
    try {
      const canceled = await parsePayload(TaskCanceledV1Event, decodeJson(message.data));
      this.seenTasks.add(canceled.taskId);
      this.running.get(canceled.taskId)?.controller.abort(new Error(`task canceled: ${canceled.reason}`));
    } catch (error) {
      this.log({ level: 'warn', message: `ignored an invalid cancel: ${describe(error)}` });
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // turns

  private async onTurnGranted(message: Msg): Promise<void> {
    const onTurn = this.options.onTurn;
    if (!onTurn || this.stopping) return;
    let turn: TurnGrantedV1Event;
    try {
      turn = await parsePayload(TurnGrantedV1Event, decodeJson(message.data));
    } catch (error) {
      this.log({ level: 'warn', message: `ignored an invalid turn grant: ${describe(error)}` });
      return;
    }
    // Without an identity, one subject carries the grants of every group.
    if (turn.speakerId !== this.card.id) return;
    // After the deadline the turn has passed on: a move would only be refused.
    const signal = AbortSignal.timeout(Math.max(0, Date.parse(turn.deadline) - Date.now()));
    try {
      const move = await onTurn(turn, { signal });
      if (!move || signal.aborted) return;
      await this.act(ProposeMoveV1, ProposeOwnMoveV1, {
        ...move,
        groupId: turn.groupId,
        speakerId: this.card.id,
        turn: turn.turn,
      });
    } catch (error) {
      // A refused move says why (INVALID_STATE, FORBIDDEN); the turn then times out and passes on.
      this.log({ level: 'warn', message: `move in group ${turn.groupId} not accepted: ${describe(error)}` });
    }
  }

  /**
   * One action of the agent: on its own subject (`ioa.agent.<id>.…`) when it has an identity, on the service's
   * subject otherwise. Both take the same payload.
   */
  private act<Request, Response>(
    shared: RequestContract<Request, Response>,
    own: RequestContract<Request, Response>,
    body: Request,
  ): Promise<Response> {
    const agentId = this.options.identity?.agentId;
    return requestOnContract(this.connection, shared, body, {
      timeoutMs: this.timeoutMs,
      subject: agentId === undefined ? shared.subject : subjectFor(own, agentId),
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // shutdown

  /**
   * Stops taking tasks, lets running ones finish within the grace period (those still running are reported
   * `failed`), optionally deregisters, and closes the connection it opened. Without `deregister` the card stays and
   * the agent goes offline when its TTL passes, which keeps its name and id for the next start.
   */
  async stop(options: { deregister?: boolean } = {}): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.heartbeatTimer);
    // Subscriptions stay open through the grace period: new assignments are declined, cancels still arrive.
    const graceMs = this.options.shutdownGraceMs ?? 10_000;
    const finished = Promise.allSettled([...this.running.values()].map((task) => task.done));
    await Promise.race([finished, delay(graceMs)]);
    for (const [taskId, task] of this.running) {
      task.controller.abort(new Error('the agent is shutting down'));
      await this.act(ReportTaskV1, ReportOwnTaskV1, {
        taskId,
        agentId: this.card.id,
        state: 'failed',
        content: 'The agent shut down before finishing the task.',
      }).catch(() => undefined);
    }
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    if (options.deregister) {
      await this.act(DeregisterAgentV1, DeregisterOwnAgentV1, { id: this.card.id, owner: this.card.owner }).catch(
        (error: unknown) => this.log({ level: 'warn', message: `deregistration failed: ${describe(error)}` }),
      );
    }
    if (this.ownsConnection) await this.connection.drain();
  }
}

function describe(error: unknown): string {
  if (error instanceof ContractError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
