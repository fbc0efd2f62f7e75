import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import {
  AssignTaskV1,
  GoalStatusChangedV1,
  GroupStateChangedV1,
  HeartbeatAgentV1,
  MessagePostedV1,
  ProposeMoveV1,
  RegisterAgentV1,
  ReportTaskV1,
  SubmitGoalV1,
  subjectFor,
  TasksAssignedV1,
  TaskUpdatedV1,
  TurnGrantedV1,
  type GoalStatusChangedV1Event,
  type GoalV1,
  type GroupStateChangedV1Event,
  type MessagePostedV1Event,
  type RegisterAgentV1Request,
  type RegisterAgentV1Response,
  type TaskAssignmentV1Request,
  type TasksAssignedV1Event,
  type TaskUpdatedV1Event,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { ContractClient, createService } from '@ioa/messaging';
import { LANGUAGE_MODEL, type LanguageModel } from '@ioa/llm';
import { connectRaw, rawRequest } from '@ioa/testing';
import { AgentHostModule } from '../../apps/agent-host/src/agent-host.module.js';
import { PlatformCommunicatorService } from '../../apps/agent-host/src/communicator/platform-communicator.service.js';
import { ChatModule } from '../../apps/chat/src/chat.module.js';
import { GroupsRepository } from '../../apps/chat/src/groups/groups.repository.js';
import { ConversationService } from '../../apps/chat/src/moves/conversation.service.js';
import { OutboxRelay } from '@ioa/database';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { SchedulerModule } from '../../apps/scheduler/src/scheduler.module.js';
import {
  benchCommand,
  benchLog,
  DATABASE_LABELS,
  databaseKinds,
  databaseVersion,
  describeMachine,
  distribution,
  envNumber,
  loadAverage,
  ms,
  nativePostgres,
  p50p99,
  runDate,
  startBenchInfrastructure,
  updateBenchmarksDoc,
  type DatabaseKind,
  type Distribution,
} from './bench-support.js';

/**
 * # Benchmark: platform overhead per turn and per goal, with a zero-latency model
 *
 * `npm run bench:overhead` (options: `BENCH_DB=pglite|native|both`, `BENCH_GOALS=20`, `BENCH_CONCURRENCY=4`,
 * `BENCH_SEQUENTIAL_GOALS=10`, `BENCH_NO_DOCS=1`).
 *
 * The real registry, chat, scheduler and agent-host (its platform communicator speaking with the offline model,
 * which decides in microseconds) run in one process against a real nats-server and database. The team is three
 * lightweight agents played over raw NATS that answer every task instantly (ack, `working`, `completed`), so what is
 * measured is the platform alone: team resolution, turns, task intake and briefs, dispatch, reports, notices,
 * conclusion. Goals name their members explicitly.
 *
 * Timing comes from an observer on its own connection (every chat and scheduler event, with its arrival time) and
 * from wrappers around a few methods of the running services (the chat's move handler, its transaction and outbox
 * flush, the communicator's turn handling and model calls, every SQL statement) — attributed to their turn with
 * AsyncLocalStorage. Nothing in the services is changed.
 */

const log = benchLog('overhead');
const SECTION = 'platform-overhead';
const decoder = new TextDecoder();

const SEQUENTIAL_GOALS = envNumber('BENCH_SEQUENTIAL_GOALS', 10);
const CONCURRENT_GOALS = envNumber('BENCH_GOALS', 20);
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 4);
const WARMUP_GOALS = 2;
const IDLE_SECONDS = 3;
const GOAL_TIMEOUT_MS = 150_000;

const GOAL =
  'Compute the quarterly totals from the sales figures, and find the delivery dates in the shipping records, ' +
  'then write a short report.';

const AGENTS: RegisterAgentV1Request[] = [
  agentCard('bench-analyst', 'Computes totals, sums and averages from sales figures.', {
    id: 'compute-totals',
    name: 'Compute totals',
    description: 'Compute quarterly totals, sums and averages from sales figures.',
    tags: ['sales', 'figures', 'totals'],
    examples: ['Compute the totals of these sales figures'],
  }),
  agentCard('bench-archivist', 'Finds dates and facts in shipping records and archives.', {
    id: 'search-records',
    name: 'Search records',
    description: 'Find delivery dates and facts in shipping records.',
    tags: ['records', 'shipping', 'dates'],
    examples: ['Find the delivery dates in these shipping records'],
  }),
  agentCard('bench-writer', 'Writes reports from results.', {
    id: 'write-report',
    name: 'Report writing',
    description: 'Compose a short Markdown report from results.',
    tags: ['writing', 'report'],
    examples: ['Write a short report of these results'],
  }),
];

function agentCard(
  name: string,
  description: string,
  skill: RegisterAgentV1Request['skills'][number],
): RegisterAgentV1Request {
  return {
    name,
    description,
    skills: [skill],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    owner: 'ioa-bench',
    endpoint: { kind: 'nats' },
    version: '1.0.0',
    // No `communicator: 'self'`: agent-host's platform communicator speaks for them, with the offline model.
    metadata: {},
  };
}

// ---------------------------------------------------------------------------------------------------------------
// instrumentation

interface SpanTotal {
  ms: number;
  count: number;
}

/** Durations of wrapped methods, overall and per key (a turn: `<groupId>:<turn>`), carried by AsyncLocalStorage. */
class Probe {
  private readonly context = new AsyncLocalStorage<string>();
  readonly spans = new Map<string, number[]>();
  /** [start, end] of every recorded call, for the time during which at least one was under way. */
  readonly intervals = new Map<string, Array<[number, number]>>();
  readonly byKey = new Map<string, Map<string, SpanTotal>>();
  recording = false;

  /** Wraps `instance[method]`; `keyOf` (if given) opens a new attribution scope from the call's arguments. */
  wrap(instance: object, method: string, label: string, keyOf?: (args: unknown[]) => string | undefined): void {
    const target = instance as Record<string, (...args: unknown[]) => unknown>;
    const original = target[method];
    if (typeof original !== 'function') throw new Error(`${label}: ${method} is not a method`);
    const time = <T>(work: () => Promise<T>) => this.time(label, work);
    const context = this.context;
    target[method] = function (this: unknown, ...args: unknown[]) {
      const run = () => time(() => original.apply(this, args) as Promise<unknown>);
      const key = keyOf?.(args);
      return key ? context.run(key, run) : run();
    };
  }

  async time<T>(label: string, work: () => Promise<T> | T): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.record(label, started, performance.now() - started);
    }
  }

  record(label: string, started: number, duration: number): void {
    if (!this.recording) return;
    const spans = this.spans.get(label) ?? [];
    spans.push(duration);
    this.spans.set(label, spans);
    const intervals = this.intervals.get(label) ?? [];
    intervals.push([started, started + duration]);
    this.intervals.set(label, intervals);
    const key = this.context.getStore();
    if (!key) return;
    const entries = this.byKey.get(key) ?? new Map<string, SpanTotal>();
    const entry = entries.get(label) ?? { ms: 0, count: 0 };
    entry.ms += duration;
    entry.count += 1;
    entries.set(label, entry);
    this.byKey.set(key, entries);
  }

  reset(): void {
    this.spans.clear();
    this.intervals.clear();
    this.byKey.clear();
  }
}

/** The probe SQL statements are reported to (the query runner's prototype is wrapped once per process). */
let sqlProbe: Probe | undefined;

/** Every SQL statement any service sends through TypeORM (BEGIN and COMMIT included), labelled by its schema. */
function instrumentSql(probe: Probe, dataSource: DataSource): void {
  sqlProbe = probe;
  const runner = dataSource.createQueryRunner();
  const prototype = Object.getPrototypeOf(runner) as {
    query: (...args: unknown[]) => Promise<unknown>;
    __benchWrapped?: boolean;
  };
  void runner.release();
  if (prototype.__benchWrapped) return;
  prototype.__benchWrapped = true;
  const original = prototype.query;
  prototype.query = function (this: { connection: DataSource }, ...args: unknown[]) {
    const schema = String((this.connection.options as { schema?: string }).schema ?? 'unknown');
    return sqlProbe ? sqlProbe.time(`sql:${schema}`, () => original.apply(this, args)) : original.apply(this, args);
  };
}

/** How long at least one of `intervals` was under way (the union of the intervals). */
function busyTime(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [from, to] = sorted[0] ?? [0, 0];
  for (const [start, end] of sorted.slice(1)) {
    if (start > to) {
      total += to - from;
      [from, to] = [start, end];
    } else to = Math.max(to, end);
  }
  return total + (to - from);
}

/** SQL statements and database busy time per schema (and `all`), and NATS messages, over a stretch of time. */
interface ActivitySnapshot {
  seconds: number;
  sql: Map<string, { statements: number; busyMs: number }>;
  nats: Map<string, number>;
}

function snapshotActivity(probe: Probe, observer: Observer, seconds: number): ActivitySnapshot {
  const sql = new Map<string, { statements: number; busyMs: number }>();
  const all: Array<[number, number]> = [];
  for (const [label, intervals] of probe.intervals) {
    if (!label.startsWith('sql:')) continue;
    sql.set(label.slice(4), { statements: intervals.length, busyMs: busyTime(intervals) });
    all.push(...intervals);
  }
  sql.set('all', { statements: all.length, busyMs: busyTime(all) });
  return { seconds, sql, nats: new Map(observer.natsSubjects) };
}

function instrumentModel(probe: Probe, model: LanguageModel, service: string): void {
  const original = model.decide.bind(model);
  (model as { decide: LanguageModel['decide'] }).decide = (call) =>
    probe.time(`model:${service}:${call.purpose}`, () => original(call));
}

// ---------------------------------------------------------------------------------------------------------------
// the observer's view of each goal

interface TaskTrace {
  assignedAt: number;
  mode: 'sync' | 'async';
  deliveredAt?: number;
  workingReportedAt?: number;
  completedReportSentAt?: number;
  completedReportRepliedAt?: number;
  completedEventAt?: number;
  resultPostedAt?: number;
}

interface GoalTrace {
  id: string;
  submittedAt: number;
  acceptedAt?: number;
  groupId?: string;
  grants: Map<number, number>;
  moves: Map<number, { type: string; at: number }>;
  tasks: Map<string, TaskTrace>;
  concludedAt?: number;
  endedAt?: number;
  status?: string;
  statusReason?: string | null;
}

class Observer {
  readonly goals = new Map<string, GoalTrace>();
  readonly natsSubjects = new Map<string, number>();
  counting = false;
  private readonly waiters = new Map<string, (trace: GoalTrace) => void>();

  /** The trace of a goal, created on first sight: its first events may arrive before the submitter has the reply. */
  trace(goalId: string): GoalTrace {
    let trace = this.goals.get(goalId);
    if (!trace) {
      trace = { id: goalId, submittedAt: Number.NaN, grants: new Map(), moves: new Map(), tasks: new Map() };
      this.goals.set(goalId, trace);
    }
    return trace;
  }
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly connection: NatsConnection,
    private readonly counter: NatsConnection,
  ) {}

  async start(): Promise<void> {
    const on = <T>(subject: string, handle: (payload: T, at: number) => void) =>
      this.subscriptions.push(
        this.connection.subscribe(subject, {
          callback: (_error, message) => handle(JSON.parse(decoder.decode(message.data)) as T, performance.now()),
        }),
      );
    on<TurnGrantedV1Event>(TurnGrantedV1.subject, (event, at) => {
      const goal = this.trace(event.goalId);
      goal.groupId ??= event.groupId;
      if (!goal.grants.has(event.turn)) goal.grants.set(event.turn, at);
    });
    on<MessagePostedV1Event>(MessagePostedV1.subject, (event, at) => {
      const goal = this.trace(event.goalId);
      const message = event.message;
      if (message.senderId === 'system') {
        const task = message.tasks?.[0] && goal.tasks.get(message.tasks[0].taskId);
        if (task && message.type === 'result') task.resultPostedAt ??= at;
        return;
      }
      if (message.type !== 'user' && !goal.moves.has(message.turn))
        goal.moves.set(message.turn, { type: message.type, at });
    });
    on<TasksAssignedV1Event>(TasksAssignedV1.subject, (event, at) => {
      const goal = this.trace(event.goalId);
      for (const task of event.tasks) goal.tasks.set(task.taskId, { assignedAt: at, mode: event.mode });
    });
    on<TaskUpdatedV1Event>(TaskUpdatedV1.subject, (event, at) => {
      const task = this.goals.get(event.task.goalId)?.tasks.get(event.task.id);
      if (task && event.task.state === 'completed') task.completedEventAt ??= at;
    });
    on<GroupStateChangedV1Event>(GroupStateChangedV1.subject, (event, at) => {
      if (event.group.state === 'concluded') this.trace(event.group.goalId).concludedAt ??= at;
    });
    on<GoalStatusChangedV1Event>(GoalStatusChangedV1.subject, (event, at) => {
      if (!['completed', 'failed', 'canceled'].includes(event.goal.status)) return;
      const goal = this.trace(event.goal.id);
      goal.endedAt ??= at;
      goal.status = event.goal.status;
      goal.statusReason = event.goal.statusReason;
      this.waiters.get(goal.id)?.(goal);
    });
    // Every message through the broker (requests, replies, events, JetStream API calls and acks), by subject.
    this.subscriptions.push(
      this.counter.subscribe('>', {
        callback: (_error, message) => {
          if (!this.counting) return;
          const kind = categorize(message.subject, message.reply);
          this.natsSubjects.set(kind, (this.natsSubjects.get(kind) ?? 0) + 1);
        },
      }),
    );
    await Promise.all([this.connection.flush(), this.counter.flush()]);
  }

  /** Resolves when the goal has ended (at once if it already has). */
  ended(goalId: string): Promise<GoalTrace> {
    const trace = this.trace(goalId);
    if (trace.endedAt !== undefined) return Promise.resolve(trace);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`goal ${goalId} did not end in time`)), GOAL_TIMEOUT_MS);
      this.waiters.set(goalId, (done) => {
        clearTimeout(timer);
        resolve(done);
      });
    });
  }

  stop(): void {
    this.subscriptions.forEach((subscription) => subscription.unsubscribe());
  }
}

/**
 * What a message seen by a `>` subscriber is. A JetStream delivery to a pull consumer is routed to the consumer's
 * inbox but keeps its stream subject, and carries a `$JS.ACK…` reply subject: that is how it is told apart from the
 * original publish (which carries an `_INBOX` reply for its ack).
 */
function categorize(subject: string, reply: string | undefined): string {
  if (reply?.startsWith('$JS.ACK.')) return 'JetStream deliveries to durable consumers';
  if (subject.startsWith('_INBOX.')) return 'replies (requests, JetStream publish acks)';
  if (subject.startsWith('$JS.ACK.')) return 'consumer acks';
  if (subject.startsWith('$JS.API.CONSUMER.MSG.NEXT')) return 'pull requests';
  if (subject.startsWith('$JS.')) return 'JetStream API';
  const name = subject.replace(/^ioa\.agent\.[0-9a-f-]+\./, 'ioa.agent.<id>.');
  return `\`${name}\``;
}

// ---------------------------------------------------------------------------------------------------------------
// the instant agents

class InstantAgents {
  readonly ids: string[] = [];
  private readonly subscriptions: Subscription[] = [];
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly connection: NatsConnection,
    private readonly observer: Observer,
  ) {}

  async register(): Promise<void> {
    for (const card of AGENTS) {
      const reply = await rawRequest(this.connection, RegisterAgentV1.subject, card);
      if (!reply.ok) throw new Error(`registering ${card.name} failed: ${JSON.stringify(reply.error)}`);
      const agent = (reply.data as RegisterAgentV1Response).agent;
      this.ids.push(agent.id);
      this.subscriptions.push(
        this.connection.subscribe(subjectFor(AssignTaskV1, agent.id), {
          callback: (_error, message) => void this.onTask(agent.id, card.name, message),
        }),
      );
    }
    this.heartbeat = setInterval(() => {
      for (const id of this.ids)
        void rawRequest(this.connection, HeartbeatAgentV1.subject, { id }).catch(() => undefined);
    }, 5000);
  }

  /** Acknowledges at once, then reports `working` and `completed` — no work at all, as a zero-latency agent would. */
  private async onTask(agentId: string, name: string, message: Msg): Promise<void> {
    const at = performance.now();
    const assignment = JSON.parse(decoder.decode(message.data)) as TaskAssignmentV1Request;
    message.respond(JSON.stringify({ ok: true, data: { accepted: true } }));
    const task = this.observer.trace(assignment.goalId).tasks.get(assignment.taskId);
    if (task) task.deliveredAt ??= at;
    const report = async (state: 'working' | 'completed', content: string) => {
      const reply = await rawRequest(
        this.connection,
        ReportTaskV1.subject,
        { taskId: assignment.taskId, agentId, state, content },
        30_000,
      );
      if (!reply.ok) log(`report ${state} of ${name} refused: ${JSON.stringify(reply.error)}`);
    };
    await report('working', 'on it');
    if (task) task.workingReportedAt = performance.now();
    const result = name.includes('writer')
      ? `# Report\n\n- ${assignment.brief.abstract}\n- All figures were found and checked.`
      : `${name}: done (${assignment.brief.abstract}). Totals 1,234,567; delivery dates 3-14 March.`;
    if (task) task.completedReportSentAt = performance.now();
    await report('completed', result);
    if (task) task.completedReportRepliedAt = performance.now();
  }

  stop(): void {
    clearInterval(this.heartbeat);
    this.subscriptions.forEach((subscription) => subscription.unsubscribe());
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the run

interface PhaseResult {
  goals: GoalTrace[];
  seconds: number;
  failed: number;
  /** CPU time of this process (all services, agents, observer; PGlite too) as a share of one core. */
  cpuShare: number;
}

interface OverheadResult {
  kind: DatabaseKind;
  databaseVersion: string;
  sequential: PhaseResult;
  concurrent: PhaseResult;
  sequentialSpans: Map<string, number[]>;
  sequentialByKey: Probe['byKey'];
  acceptedAt: Map<string, number>;
  /** What runs with no goal at all (sweepers, heartbeats, outbox timers), and the sequential phase. */
  idle: ActivitySnapshot;
  busy: ActivitySnapshot;
  loadBefore: string;
  loadAfter: string;
  seconds: number;
}

describe('bench: platform overhead', () => {
  it(
    'goals through registry, chat, scheduler and agent-host with a zero-latency model and instant agents',
    async () => {
      let ran = 0;
      for (const kind of databaseKinds('both')) {
        let serverUrl: string | undefined;
        let stopServer = () => undefined as void;
        if (kind === 'native-postgres') {
          const native = nativePostgres(log);
          if ('unavailable' in native) {
            log(`native PostgreSQL skipped: ${native.unavailable}`);
            continue;
          }
          serverUrl = native.url;
          stopServer = native.stop;
        }
        try {
          const result = await runOverheadBench(kind, serverUrl);
          const markdown = render(result);
          process.stdout.write(`\n${markdown}\n\n`);
          await updateBenchmarksDoc(SECTION, INTRO, kind, markdown, ['pglite', 'native-postgres']);
          ran += 1;
        } finally {
          stopServer();
        }
      }
      expect(ran).toBeGreaterThan(0);
    },
    15 * 60_000,
  );
});

async function runOverheadBench(kind: DatabaseKind, serverUrl: string | undefined): Promise<OverheadResult> {
  const started = performance.now();
  const loadBefore = loadAverage();
  log(`${DATABASE_LABELS[kind]}: starting nats-server, the database, registry, chat, scheduler and agent-host`);
  const infrastructure = await startBenchInfrastructure(kind, serverUrl);
  // Production settings, except: agent-host hosts only its writer (the built-in agents are not used here; the
  // researcher would spend the boot embedding its documents).
  infrastructure.applyEnvironment({ AGENT_HOST_AGENTS: 'writer' });
  const services: INestMicroservice[] = [];
  const connections: NatsConnection[] = [];
  const probe = new Probe();
  let agents: InstantAgents | undefined;
  let observer: Observer | undefined;
  try {
    for (const [module, name] of [
      [RegistryModule, 'registry'],
      [ChatModule, 'chat'],
      [SchedulerModule, 'scheduler'],
      [AgentHostModule, 'agent-host'],
    ] as const) {
      services.push(await createService(module, { name, logger: ['error', 'fatal'] }));
    }
    const [, chat, scheduler, agentHost] = services;
    const acceptedAt = instrument(probe, chat, scheduler, agentHost, services);

    const client = await connectRaw(infrastructure.natsUrl);
    const watcher = await connectRaw(infrastructure.natsUrl);
    const counter = await connectRaw(infrastructure.natsUrl);
    const agentConnection = await connectRaw(infrastructure.natsUrl);
    connections.push(client, watcher, counter, agentConnection);
    observer = new Observer(watcher, counter);
    await observer.start();
    agents = new InstantAgents(agentConnection, observer);
    await agents.register();
    const version = await databaseVersion(infrastructure.databaseUrl, kind);
    const names = AGENTS.map((card) => card.name);
    const submit = async (): Promise<GoalTrace> => {
      // The goal id is the scheduler's; the observer learns it from the reply, and keeps early events by goal id.
      const submittedAt = performance.now();
      const reply = await rawRequest(
        client,
        SubmitGoalV1.subject,
        { goal: GOAL, members: names, maxTurns: 12 },
        30_000,
      );
      if (!reply.ok) throw new Error(`SubmitGoalV1 failed: ${JSON.stringify(reply.error)}`);
      const trace = observer!.trace((reply.data as GoalV1).id);
      trace.submittedAt = submittedAt;
      trace.acceptedAt = performance.now();
      return observer!.ended(trace.id);
    };

    log(`warming up with ${WARMUP_GOALS} goals`);
    for (let index = 0; index < WARMUP_GOALS; index++) await submit();

    log(`${IDLE_SECONDS} s without goals (the background: sweepers, heartbeats, outbox timers)`);
    probe.reset();
    probe.recording = true;
    observer.counting = true;
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = snapshotActivity(probe, observer, (performance.now() - idleStarted) / 1000);

    log(`${SEQUENTIAL_GOALS} goals, one at a time`);
    probe.reset();
    observer.natsSubjects.clear();
    const sequential = await runPhase(SEQUENTIAL_GOALS, 1, submit);
    const busy = snapshotActivity(probe, observer, sequential.seconds);
    observer.counting = false;
    probe.recording = false;
    const sequentialSpans = new Map(probe.spans);
    const sequentialByKey = new Map(probe.byKey);

    log(`${CONCURRENT_GOALS} goals, ${CONCURRENCY} at a time`);
    probe.reset();
    const concurrent = await runPhase(CONCURRENT_GOALS, CONCURRENCY, submit);
    return {
      kind,
      databaseVersion: version,
      sequential,
      concurrent,
      sequentialSpans,
      sequentialByKey,
      acceptedAt,
      idle,
      busy,
      loadBefore,
      loadAfter: loadAverage(),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    agents?.stop();
    observer?.stop();
    for (const connection of connections) await connection.close().catch(() => undefined);
    for (const service of services.reverse()) await service.close().catch(() => undefined);
    await infrastructure.stop();
  }
}

function instrument(
  probe: Probe,
  chat: INestMicroservice,
  scheduler: INestMicroservice,
  agentHost: INestMicroservice,
  services: INestMicroservice[],
): Map<string, number> {
  const turnKey = (args: unknown[]) => {
    const request = args[0] as { groupId?: string; turn?: number };
    return request?.groupId && request.turn ? `${request.groupId}:${request.turn}` : undefined;
  };
  probe.wrap(chat.get(ConversationService), 'propose', 'chat: move handler', turnKey);
  probe.wrap(chat.get(GroupsRepository), 'transaction', 'chat: move transaction');
  probe.wrap(chat.get(OutboxRelay), 'flush', 'chat: outbox publish');
  const communicator = agentHost.get(PlatformCommunicatorService);
  const acceptedAt = new Map<string, number>();
  const originalAccept = communicator.accept.bind(communicator);
  communicator.accept = (event: TurnGrantedV1Event) => {
    acceptedAt.set(`${event.groupId}:${event.turn}`, performance.now());
    return originalAccept(event); // owns the turn (a row in agent-host's table), then queues it
  };
  probe.wrap(communicator, 'handleTurn', 'communicator: turn', (args) => turnKey(args));
  const agentHostClient = agentHost.get(ContractClient);
  const originalRequest = agentHostClient.request.bind(agentHostClient);
  agentHostClient.request = ((contract: { subject: string }, payload: unknown, ...rest: unknown[]) =>
    contract.subject === ProposeMoveV1.subject
      ? probe.time('communicator: ProposeMoveV1 round trip', () =>
          (originalRequest as (...args: unknown[]) => Promise<unknown>)(contract, payload, ...rest),
        )
      : (originalRequest as (...args: unknown[]) => Promise<unknown>)(
          contract,
          payload,
          ...rest,
        )) as typeof agentHostClient.request;
  instrumentModel(probe, agentHost.get<LanguageModel>(LANGUAGE_MODEL), 'agent-host');
  instrumentModel(probe, scheduler.get<LanguageModel>(LANGUAGE_MODEL), 'scheduler');
  for (const service of services) instrumentSql(probe, service.get(DataSource));
  return acceptedAt;
}

async function runPhase(count: number, concurrency: number, submit: () => Promise<GoalTrace>): Promise<PhaseResult> {
  const goals: GoalTrace[] = [];
  let next = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const worker = async () => {
    while (next < count) {
      next += 1;
      goals.push(await submit());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  for (const goal of goals) {
    if (goal.status !== 'completed') log(`goal ${goal.id} ended ${goal.status}: ${goal.statusReason}`);
  }
  return {
    goals,
    seconds,
    failed: goals.filter((goal) => goal.status !== 'completed').length,
    cpuShare: (cpu.user + cpu.system) / 1e6 / seconds,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// analysis

const DIRECT_MOVES = new Set(['discussion', 'async_task_assign']);

interface TurnSample {
  key: string;
  type: string;
  grantToMove: number;
  cycle?: number;
}

function turnsOf(goals: GoalTrace[]): TurnSample[] {
  const samples: TurnSample[] = [];
  for (const goal of goals) {
    for (const [turn, grantedAt] of goal.grants) {
      const move = goal.moves.get(turn);
      if (!move) continue;
      const next = goal.grants.get(turn + 1);
      samples.push({
        key: `${goal.groupId}:${turn}`,
        type: move.type,
        grantToMove: move.at - grantedAt,
        cycle: DIRECT_MOVES.has(move.type) && next !== undefined ? next - grantedAt : undefined,
      });
    }
  }
  return samples;
}

function goalSegments(goals: GoalTrace[]): Array<[string, Distribution]> {
  const collect = new Map<string, number[]>();
  const add = (label: string, value: number | undefined) => {
    if (value === undefined || !Number.isFinite(value)) return;
    collect.set(label, [...(collect.get(label) ?? []), value]);
  };
  for (const goal of goals) {
    const firstGrant = goal.grants.get(1);
    add('submit → reply (goal stored)', goal.acceptedAt! - goal.submittedAt);
    add('submit → first turn granted (members resolved, group opened)', firstGrant! - goal.submittedAt);
    for (const task of goal.tasks.values()) {
      add(
        'task: assigned → delivered to the agent (scheduler: store, brief, dispatch)',
        task.deliveredAt! - task.assignedAt,
      );
      add('task: agent acks and reports `working` (request → reply)', task.workingReportedAt! - task.deliveredAt!);
      add(
        'task: `completed` report request → reply (scheduler transaction)',
        task.completedReportRepliedAt! - task.completedReportSentAt!,
      );
      add('task: `completed` sent → `TaskUpdatedV1` seen', task.completedEventAt! - task.completedReportSentAt!);
      add('task: `TaskUpdatedV1` → result notice posted (chat)', task.resultPostedAt! - task.completedEventAt!);
      add(`task (${task.mode}): assigned → result notice posted`, task.resultPostedAt! - task.assignedAt);
    }
    const turns = [...goal.grants.keys()].sort((a, b) => a - b);
    const last = goal.moves.get(turns[turns.length - 1]);
    if (last?.type === 'conclude') add('conclude posted → goal `completed` seen', goal.endedAt! - last.at);
    add('goal: submit → completed', goal.endedAt! - goal.submittedAt);
  }
  return [...collect.entries()].map(([label, values]) => [label, distribution(values)]);
}

// ---------------------------------------------------------------------------------------------------------------
// docs/benchmarks.md

const INTRO = `
## Platform overhead per turn and per goal (zero-latency model)

\`\`\`bash
npm run bench:overhead                    # embedded PGlite, then native PostgreSQL 15 (needs root, or TEST_DATABASE_URL)
BENCH_DB=pglite npm run bench:overhead    # pglite | native | both
BENCH_SEQUENTIAL_GOALS=10 BENCH_GOALS=20 BENCH_CONCURRENCY=4 npm run bench:overhead
\`\`\`

Code: \`test/bench/platform-overhead.bench.ts\`.

**What it does.** The real registry, chat, scheduler and agent-host run in one process (production settings)
against a real nats-server and a fresh database. agent-host's platform communicator speaks for the team with the
offline model, which decides in well under a millisecond — a zero-latency model. The team is three agents played over
raw NATS (an analyst, an archivist, a writer) that answer every task instantly: ack, report \`working\`, report
\`completed\`. So all the time measured is the platform's. Each goal names its members
(\`${AGENTS.map((card) => card.name).join('`, `')}\`) and runs the offline flow: turn 1 the leader assigns two async
tasks, turn 2 it pauses on them (or, when they have already finished, goes straight on), then a sync task to the
writer, then the conclusion — 3–4 turns and 3 tasks. After ${WARMUP_GOALS} warm-up goals:
${SEQUENTIAL_GOALS} goals one at a time (the breakdown), then ${CONCURRENT_GOALS} goals with ${CONCURRENCY} in flight.

**Where the numbers come from.** An observer on its own NATS connection timestamps every chat and scheduler event;
the instant agents timestamp deliveries and reports; and a few methods of the running services are wrapped (the
chat's move handler, its transaction and outbox flush, the communicator's turn and model calls, every SQL
statement) with AsyncLocalStorage attributing them to their turn — nothing in the services is changed. A *turn* is
measured from the observer seeing \`TurnGrantedV1\` to it seeing the move's \`MessagePostedV1\`, and for moves that
hand the turn on directly (\`discussion\`, \`async_task_assign\`) to the next \`TurnGrantedV1\`.

**How to read it.** Everything shares one Node.js event loop (and, with PGlite, the database too), on a machine
shared with other jobs: the figures are an upper bound of what the platform costs, and the breakdown says where
that time goes.
`;

function render(result: OverheadResult): string {
  const label = DATABASE_LABELS[result.kind];
  const { sequential, concurrent } = result;
  const seqTurns = turnsOf(sequential.goals);
  const conTurns = turnsOf(concurrent.goals);
  const cycles = (turns: TurnSample[]) =>
    distribution(turns.flatMap((turn) => (turn.cycle === undefined ? [] : [turn.cycle])));
  const grantToMove = (turns: TurnSample[]) => distribution(turns.map((turn) => turn.grantToMove));
  const goalTime = (phase: PhaseResult) => distribution(phase.goals.map((goal) => goal.endedAt! - goal.submittedAt));
  const turnsPerGoal = seqTurns.length / Math.max(1, sequential.goals.length);
  const tasksPerGoal =
    sequential.goals.reduce((sum, goal) => sum + goal.tasks.size, 0) / Math.max(1, sequential.goals.length);

  // Per-turn breakdown (sequential phase): JetStream delivery to the communicator, then what the wrappers measured.
  const perTurn = new Map<string, number[]>();
  const push = (name: string, value: number) => perTurn.set(name, [...(perTurn.get(name) ?? []), value]);
  const grantSeen = new Map<string, number>();
  for (const goal of sequential.goals)
    for (const [turn, at] of goal.grants) grantSeen.set(`${goal.groupId}:${turn}`, at);
  for (const turn of seqTurns) {
    const spans = result.sequentialByKey.get(turn.key);
    const accepted = result.acceptedAt.get(turn.key);
    const seen = grantSeen.get(turn.key);
    if (accepted !== undefined && seen !== undefined)
      push('`TurnGrantedV1` → communicator (JetStream pull consumer)', accepted - seen);
    if (!spans) continue;
    const get = (name: string) => spans.get(name)?.ms ?? 0;
    const model = [...spans.entries()]
      .filter(([name]) => name.startsWith('model:'))
      .reduce((sum, [, entry]) => sum + entry.ms, 0);
    const handler = get('chat: move handler');
    const roundTrip = get('communicator: ProposeMoveV1 round trip');
    push(
      'communicator: card lookups and prompt (turn handling minus model and propose)',
      get('communicator: turn') - model - roundTrip,
    );
    push('model (offline: turn.move, conclusion)', model);
    push('ProposeMoveV1 request/reply over NATS (round trip minus the chat handler)', roundTrip - handler);
    push('chat: move transaction (lock, validate, append, outbox rows)', get('chat: move transaction'));
    push('chat: outbox publish (claim, 2 JetStream publishes + acks, delete)', get('chat: outbox publish'));
    push(
      'chat: rest of the handler (validation pipe, mapping)',
      handler - get('chat: move transaction') - get('chat: outbox publish'),
    );
    push('of which SQL statements in chat (count)', spans.get('sql:chat')?.count ?? 0);
    push('of which SQL time in chat', get('sql:chat'));
  }

  // Per goal, net of what the platform does with no goal at all over the same time.
  const goals = sequential.goals.length;
  const { idle, busy } = result;
  // Clamped at zero: a service that does next to nothing per goal can come out slightly negative after the idle rate.
  const net = (during: number, idleCount: number) =>
    Math.max(0, (during - (idleCount / idle.seconds) * busy.seconds) / goals);
  const sqlRows = ['registry', 'chat', 'scheduler', 'all'].map((schema) => {
    const during = busy.sql.get(schema) ?? { statements: 0, busyMs: 0 };
    const quiet = idle.sql.get(schema) ?? { statements: 0, busyMs: 0 };
    return {
      schema,
      statements: net(during.statements, quiet.statements),
      busyMs: net(during.busyMs, quiet.busyMs),
      share: during.busyMs / (busy.seconds * 1000),
      idlePerSecond: quiet.statements / idle.seconds,
    };
  });
  const natsRows = [...busy.nats.entries()]
    .map(([subject, count]) => [subject, net(count, idle.nats.get(subject) ?? 0)] as [string, number])
    .sort((a, b) => b[1] - a[1]);
  const natsTotal = natsRows.reduce((sum, [, count]) => sum + count, 0);
  const modelRows = [...result.sequentialSpans.entries()]
    .filter(([name]) => name.startsWith('model:'))
    .map(([name, values]) => ({
      name: name.slice('model:'.length),
      calls: values.length / SEQUENTIAL_GOALS,
      d: distribution(values),
    }));
  const seqGoal = goalTime(sequential);

  const lines = [
    `### ${label} — ${runDate()}`,
    '',
    `- Machine: ${describeMachine()}; load average (1/5/15 min) ${result.loadBefore} before, ${result.loadAfter} after ` +
      '(shared with other jobs)',
    `- Database: ${result.databaseVersion}; nats-server 2.9, local; model: offline (deterministic, zero latency)`,
    `- Command: \`${benchCommand('bench:overhead')}\` (this database's part of the run: ${Math.round(result.seconds)} s)`,
    `- Goals: ${sequential.goals.length} one at a time (${sequential.failed} not completed), ${concurrent.goals.length} with ` +
      `${CONCURRENCY} in flight (${concurrent.failed} not completed); ${turnsPerGoal.toFixed(1)} turns and ` +
      `${tasksPerGoal.toFixed(1)} tasks per goal`,
    '',
    '| | one goal at a time: p50 / p99 | ' + `${CONCURRENCY} goals in flight: p50 / p99 |`,
    '| --- | ---: | ---: |',
    `| **per goal**: submit → \`completed\` | **${p50p99(seqGoal)}** | **${p50p99(goalTime(concurrent))}** |`,
    `| **per turn**: granted → move accepted and posted | **${p50p99(grantToMove(seqTurns))}** | **${p50p99(grantToMove(conTurns))}** |`,
    `| per turn: granted → move accepted → next turn granted (direct hand-overs) | ${p50p99(cycles(seqTurns))} | ${p50p99(cycles(conTurns))} |`,
    `| goals completed per second | ${(sequential.goals.length / sequential.seconds).toFixed(2)} | ${(concurrent.goals.length / concurrent.seconds).toFixed(2)} |`,
    `| CPU of the one Node.js process (all services, agents, observer${result.kind === 'pglite' ? ', PGlite' : ''}), share of one core | ` +
      `${(sequential.cpuShare * 100).toFixed(0)} % | ${(concurrent.cpuShare * 100).toFixed(0)} % |`,
    '',
    `**Where a goal's time goes** (one goal at a time, ${sequential.goals.length} goals; observer timestamps):`,
    '',
    '| segment | p50 | p99 |',
    '| --- | ---: | ---: |',
    ...goalSegments(sequential.goals).map(([name, d]) => `| ${name} | ${ms(d.p50)} | ${ms(d.p99)} |`),
    '',
    `**Where a turn's time goes** (one goal at a time, ${seqTurns.length} turns; per turn, from the wrappers):`,
    '',
    '| part of a turn | p50 | p99 |',
    '| --- | ---: | ---: |',
    ...[...perTurn.entries()].map(([name, values]) => {
      const d = distribution(values);
      return name.includes('(count)')
        ? `| ${name} | ${d.p50} | ${d.p99} |`
        : `| ${name} | ${ms(d.p50)} | ${ms(d.p99)} |`;
    }),
    '',
    `**Per goal, all services** (one goal at a time, net of the ${idle.seconds.toFixed(0)}-second idle baseline measured ` +
      'just before: sweepers, heartbeats, outbox timers). *Database busy* is the time during which at least one SQL ' +
      'statement of that service was under way (the union of their intervals, as the services saw them: with PGlite ' +
      'this includes waiting for its single session):',
    '',
    '| service | SQL statements per goal (BEGIN/COMMIT included) | database busy per goal | busy share of the phase | idle background |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...sqlRows.map(
      (row) =>
        `| ${row.schema === 'all' ? '**all**' : row.schema} | ${row.statements.toFixed(0)} | ${ms(row.busyMs)} | ` +
        `${(row.share * 100).toFixed(0)} % | ${row.idlePerSecond.toFixed(1)} statements/s |`,
    ),
    '',
    `Goal time (mean) ${ms(seqGoal.mean)}. Model calls per goal: ` +
      modelRows.map((row) => `${row.name} ${row.calls.toFixed(1)} (p50 ${ms(row.d.p50)})`).join(', ') +
      `. NATS messages per goal (everything through the broker, seen by a \`>\` subscriber, net of idle): ` +
      `${natsTotal.toFixed(0)} — ` +
      natsRows
        .slice(0, 10)
        .map(([subject, count]) => `${subject} ${count.toFixed(1)}`)
        .join(', ') +
      '.',
  ];
  return lines.join('\n');
}
