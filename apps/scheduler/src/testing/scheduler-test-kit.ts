import 'reflect-metadata';
import type { INestMicroservice, Type } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  AgentIndexedV1,
  AssignTaskV1,
  GetGoalV1,
  HeartbeatAgentV1,
  ListGoalEventsV1,
  ProposeMoveV1,
  RegisterAgentV1,
  ReportTaskV1,
  subjectFor,
  TaskCanceledV1,
  TurnGrantedV1,
  type AgentCardV1,
  type AgentSkillV1,
  type ErrorBody,
  type GoalEventV1,
  type GoalStatus,
  type GoalV1,
  type ModelUsageV1,
  type ProposeMoveV1Request,
  type ProposeMoveV1Response,
  type RegisterAgentV1Response,
  type RequestContract,
  type TaskAssignmentV1Request,
  type TaskAssignmentV1Response,
  type TaskCanceledV1Event,
  type TaskV1,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
// The scheduler's integration tests boot the real peers it talks to (registry, discovery, chat) in the same process,
// rather than fakes of them: what is tested is the conversation between the services over a real broker. Only this
// test support reaches into other apps; it is kept out of the build, and production code never does.
// eslint-disable-next-line ioa/module-boundaries -- test support booting a peer service (see above)
import { ChatModule } from '../../../chat/src/chat.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test support booting a peer service (see above)
import { DiscoveryModule } from '../../../discovery/src/discovery.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test support booting a peer service (see above)
import { RegistryModule } from '../../../registry/src/registry.module.js';
import { SchedulerModule } from '../scheduler.module.js';

/** What a NATS reply looks like to an external client. */
export type Envelope<T> = { ok: true; data: T } | { ok: false; error: ErrorBody };

const decoder = new TextDecoder();
const HEARTBEAT_INTERVAL_MS = 250;

export interface SchedulerHarness {
  infrastructure: TestInfrastructure;
  scheduler: INestMicroservice;
  /** A bare NATS client: the tests act as people and agents through it, with nothing of ours. */
  external: NatsConnection;
  call<Request, Response>(contract: RequestContract<Request, Response>, body: unknown): Promise<Envelope<Response>>;
  ok<Request, Response>(contract: RequestContract<Request, Response>, body: Request): Promise<Response>;
  /** Waits until the goal satisfies `predicate` (polling `GetGoalV1`), and returns it. */
  goalWhen(goalId: string, predicate: (goal: GoalV1) => boolean, message?: string): Promise<GoalV1>;
  goalIn(goalId: string, status: GoalStatus): Promise<GoalV1>;
  events(goalId: string): Promise<GoalEventV1[]>;
  registerAgent(spec: AgentSpec): Promise<TestAgent>;
  /** Stops the scheduler and boots a new one on the same broker and database (a restart); `whileDown` runs between. */
  restartScheduler(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Real nats-server + a fresh database, with the scheduler and the real registry, discovery and chat services
 * booted as in production (short sweep intervals). Agents are played by the test over raw NATS.
 */
export async function startScheduler(environment: Record<string, string> = {}): Promise<SchedulerHarness> {
  const infrastructure = await startTestInfrastructure();
  infrastructure.applyEnvironment({
    SCHEDULER_SWEEP_INTERVAL_MS: '100',
    SCHEDULER_DISPATCH_BACKOFF_MS: '50',
    SCHEDULER_DISPATCH_TIMEOUT_MS: '1000',
    CHAT_TURN_TIMEOUT_SWEEP_MS: '50',
    CHAT_OUTBOX_RETRY_MS: '200',
    DISCOVERY_RECONCILE_ON_BOOT: 'false',
    // Short presence TTL so a silent agent goes offline quickly; test agents heartbeat well within it.
    REGISTRY_HEARTBEAT_TTL_SECONDS: '2',
    REGISTRY_PRESENCE_SWEEP_MS: '100',
    ...environment,
  });
  const boot = (module: Type, name: string) => createService(module, { name, logger: ['error', 'fatal'] });
  const others: INestMicroservice[] = [];
  let scheduler: INestMicroservice;
  let external: NatsConnection;
  const agents: TestAgent[] = [];
  try {
    others.push(await boot(RegistryModule, 'registry'));
    others.push(await boot(DiscoveryModule, 'discovery'));
    others.push(await boot(ChatModule, 'chat'));
    scheduler = await boot(SchedulerModule, 'scheduler');
    external = await connectRaw(infrastructure.natsUrl);
  } catch (error) {
    await Promise.allSettled(others.map((service) => service.close()));
    await infrastructure.stop();
    throw error;
  }

  const harness: SchedulerHarness = {
    infrastructure,
    scheduler,
    external,
    call: (contract, body) => rawRequest(external, contract.subject, body) as never,
    async ok(contract, body) {
      const reply = await harness.call(contract, body);
      if (!reply.ok) throw new Error(`${contract.subject} failed: ${JSON.stringify(reply.error)}`);
      return reply.data;
    },
    goalWhen(goalId, predicate, message) {
      return expectEventually(
        async (): Promise<GoalV1> => {
          const goal = await harness.ok(GetGoalV1, { goalId });
          if (!predicate(goal)) throw new Error(`last seen: ${JSON.stringify(goal)}`);
          return goal;
        },
        // Generous: test files run in parallel on small machines, and the embedded database shares their CPU.
        { timeoutMs: 30_000, message: message ?? `goal ${goalId} did not reach the expected state` },
      );
    },
    goalIn(goalId, status) {
      return harness.goalWhen(goalId, (goal) => goal.status === status, `goal ${goalId} never became ${status}`);
    },
    async events(goalId) {
      const page = await harness.ok(ListGoalEventsV1, { goalId, afterSeq: 0, limit: 1000 });
      return page.items;
    },
    async registerAgent(spec) {
      const agent = await TestAgent.register(external, spec);
      agents.push(agent);
      return agent;
    },
    async restartScheduler(whileDown) {
      await harness.scheduler.close();
      await whileDown?.();
      harness.scheduler = await boot(SchedulerModule, 'scheduler');
    },
    async stop() {
      agents.forEach((agent) => agent.stop());
      await external?.close();
      await harness.scheduler?.close();
      for (const service of others.reverse()) await service.close();
      await infrastructure.stop();
    },
  };
  return harness;
}

// ---------------------------------------------------------------------------------------------------------------
// agents played by the test

export interface AgentSpec {
  name: string;
  description: string;
  skills: Array<Pick<AgentSkillV1, 'id' | 'name' | 'description'> & Partial<AgentSkillV1>>;
}

export const CODE_RUNNER: AgentSpec = {
  name: 'test-code-runner',
  description: 'Runs JavaScript code in a sandbox and reports what it printed.',
  skills: [
    {
      id: 'run-javascript',
      name: 'Run JavaScript',
      description: 'Execute JavaScript code and report its standard output.',
      tags: ['code', 'javascript'],
      examples: ['Run this JavaScript code: console.log(6 * 7)'],
    },
  ],
};

export const WRITER: AgentSpec = {
  name: 'test-writer',
  description: 'Writes reports: composes a Markdown report from results.',
  skills: [
    {
      id: 'write-report',
      name: 'Report writing',
      description: 'Compose a clear Markdown report that summarizes results.',
      tags: ['writing', 'report'],
      examples: ['Write a report that summarizes these results'],
    },
  ],
};

export const TRANSLATOR: AgentSpec = {
  name: 'test-translator',
  description: 'Translates documents between English, German and French.',
  skills: [
    {
      id: 'translate-text',
      name: 'Text translation',
      description: 'Translate text or documents into another language.',
      tags: ['translation', 'languages'],
      examples: ['Translate this letter into German'],
    },
  ],
};

let agentCounter = 0;

/** A spec with a unique name (agent names are unique in the registry), e.g. `anAgent(WRITER)`. */
export function anAgent(spec: AgentSpec, overrides: Partial<AgentSpec> = {}): AgentSpec {
  agentCounter += 1;
  return { ...spec, ...overrides, name: `${overrides.name ?? spec.name}-${agentCounter}` };
}

export type MoveFields = Partial<ProposeMoveV1Request> & Pick<ProposeMoveV1Request, 'type'>;

/**
 * An agent as an external process would be: registered in the registry, serving its own task subject
 * (`ioa.agent.<id>.task.v1`), listening for cancellations, speaking for itself when it holds the turn, and reporting
 * through `ReportTaskV1` — all with a bare NATS client and JSON.
 */
export class TestAgent {
  readonly assignments: TaskAssignmentV1Request[] = [];
  readonly cancellations: TaskCanceledV1Event[] = [];
  readonly turns: TurnGrantedV1Event[] = [];
  /** Moves of this agent that chat rejected (a turn that went stale meanwhile, for example). */
  readonly rejections: ErrorBody[] = [];
  /** How the agent answers a delivered task (default: accept). */
  onTask: (assignment: TaskAssignmentV1Request) => TaskAssignmentV1Response | Promise<TaskAssignmentV1Response> =
    () => ({
      accepted: true,
    });
  /** What the agent says when it gets the turn (default: nothing — the turn times out). */
  onTurn: (turn: TurnGrantedV1Event) => MoveFields | undefined | Promise<MoveFields | undefined> = () => undefined;
  private taskSubscription?: Subscription;
  private readonly subscriptions: Subscription[] = [];
  private heartbeat?: NodeJS.Timeout;

  private constructor(
    private readonly connection: NatsConnection,
    readonly card: AgentCardV1,
  ) {}

  get id(): string {
    return this.card.id;
  }

  get name(): string {
    return this.card.name;
  }

  static async register(connection: NatsConnection, spec: AgentSpec): Promise<TestAgent> {
    const indexed: string[] = [];
    const watch = connection.subscribe(AgentIndexedV1.subject, {
      callback: (_error, message) => {
        indexed.push((JSON.parse(decoder.decode(message.data)) as { agentId: string }).agentId);
      },
    });
    try {
      const reply = (await rawRequest(connection, RegisterAgentV1.subject, {
        ...spec,
        skills: spec.skills.map((skill) => ({ tags: [], examples: [], ...skill })),
        owner: 'scheduler-tests',
        endpoint: { kind: 'nats' },
        metadata: { communicator: 'self' },
      })) as Envelope<RegisterAgentV1Response>;
      if (!reply.ok) throw new Error(`registration of ${spec.name} failed: ${JSON.stringify(reply.error)}`);
      const agent = new TestAgent(connection, reply.data.agent);
      // Searches see the agent only once discovery has embedded its card.
      await expectEventually(() => indexed.includes(agent.id), { message: `${spec.name} was never indexed` });
      agent.serve();
      agent.heartbeat = setInterval(() => {
        void rawRequest(connection, HeartbeatAgentV1.subject, { id: agent.id }).catch(() => undefined);
      }, HEARTBEAT_INTERVAL_MS);
      return agent;
    } finally {
      watch.unsubscribe();
    }
  }

  private serve(): void {
    this.serveTasks();
    this.subscriptions.push(
      this.connection.subscribe(subjectFor(TaskCanceledV1, this.id), {
        callback: (_error, message) => {
          this.cancellations.push(JSON.parse(decoder.decode(message.data)) as TaskCanceledV1Event);
        },
      }),
      this.connection.subscribe(TurnGrantedV1.subject, {
        callback: (_error, message) => {
          const turn = JSON.parse(decoder.decode(message.data)) as TurnGrantedV1Event;
          if (turn.speakerId !== this.id) return;
          this.turns.push(turn);
          void this.speak(turn);
        },
      }),
    );
  }

  /** Serves the task subject (again). */
  serveTasks(): void {
    this.taskSubscription?.unsubscribe();
    this.taskSubscription = this.connection.subscribe(subjectFor(AssignTaskV1, this.id), {
      callback: (_error, message) => {
        const assignment = JSON.parse(decoder.decode(message.data)) as TaskAssignmentV1Request;
        this.assignments.push(assignment);
        void Promise.resolve(this.onTask(assignment)).then((answer) =>
          message.respond(JSON.stringify({ ok: true, data: answer })),
        );
      },
    });
  }

  /** Stops serving the task subject: deliveries find no responder. */
  stopServingTasks(): void {
    this.taskSubscription?.unsubscribe();
    this.taskSubscription = undefined;
  }

  private async speak(turn: TurnGrantedV1Event): Promise<void> {
    try {
      const fields = await this.onTurn(turn);
      if (!fields) return;
      const reply = await this.propose(turn, fields);
      if (!reply.ok) this.rejections.push(reply.error);
    } catch (error) {
      this.rejections.push({ code: 'INTERNAL', message: String(error), retryable: false });
    }
  }

  propose(
    turn: Pick<TurnGrantedV1Event, 'groupId' | 'turn'>,
    fields: MoveFields,
  ): Promise<Envelope<ProposeMoveV1Response>> {
    return rawRequest(this.connection, ProposeMoveV1.subject, {
      groupId: turn.groupId,
      speakerId: this.id,
      turn: turn.turn,
      content: `${this.name} speaks`,
      ...fields,
    }) as never;
  }

  report(
    taskId: string,
    state: 'working' | 'input-required' | 'completed' | 'failed' | 'rejected',
    content?: string,
    usage?: ModelUsageV1,
  ): Promise<Envelope<TaskV1>> {
    return rawRequest(this.connection, ReportTaskV1.subject, {
      taskId,
      agentId: this.id,
      state,
      content,
      usage,
    }) as never;
  }

  /** The assignment of a task this agent received, once it has arrived. */
  assignment(
    predicate: (assignment: TaskAssignmentV1Request) => boolean = () => true,
  ): Promise<TaskAssignmentV1Request> {
    return expectEventually(
      () => {
        const found = this.assignments.find(predicate);
        if (!found) throw new Error('not yet');
        return found;
      },
      { message: `${this.name} received no such task` },
    );
  }

  /** Stops heartbeating: the registry marks the agent offline once its TTL passes. */
  goSilent(): void {
    clearInterval(this.heartbeat);
  }

  stop(): void {
    this.goSilent();
    this.stopServingTasks();
    this.subscriptions.forEach((subscription) => subscription.unsubscribe());
  }
}
