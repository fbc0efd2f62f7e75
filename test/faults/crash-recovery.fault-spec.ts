import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  TurnGrantedV1,
  type ChatMessageV1,
  type GoalV1,
  type ListMessagesV1Response,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { adminAuthHeaders, expectEventually } from '@ioa/testing';
import { FAULT_ENVIRONMENT, startFaultStack, tailOf, type FaultStack, type ServiceName } from './fault-stack.js';
import { FaultWorker } from './fault-worker.js';

/**
 * The fault suite (`npm run test:faults`): each service its own process, chat and scheduler with two replicas, one
 * nats-server, native PostgreSQL, under the launcher's supervision. For each service, a `kill -9` while a task runs
 * and while a turn is being taken, then (the launcher restarts it) the goal must complete with every task's result,
 * its group's messages must be contiguous with one result per task, and the next goal must complete too. Also the
 * broker and the database restarted mid-goal, and an external agent that dies mid-task. Each recovery is timed and
 * the table printed at the end.
 */
const GOAL_TIMEOUT_MS = 90_000;
/** One scenario: a fault, the recovery, the goal in flight and the next goal. */
const SCENARIO_TIMEOUT_MS = 240_000;
const SKILL = 'Measure the fault signal of a run';

/** `expectEventually` for probes that answer `undefined` until the fact holds: resolves with the fact itself. */
async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number; message: string },
): Promise<T> {
  return (await expectEventually(probe, options)) as T;
}

interface Victim {
  service: ServiceName;
  replica: number;
  pid: number;
  label: string;
  killedAt: number;
}

interface Recovery {
  scenario: string;
  /** Fault → the replacement (or the restarted infrastructure) is up. */
  backMs: number;
  /** Fault → the goal in flight completed. */
  goalMs: number;
  /** The next goal, submitted right after the recovery: submission → completed. */
  nextGoalMs: number;
}

describe('crashes lose nothing: kill -9 and restarts on real processes', () => {
  let faults: FaultStack;
  let worker: FaultWorker;
  let observer: NatsConnection;
  const recoveries: Recovery[] = [];
  /** kill -9s per process label: any other death is a crash the suite did not cause. */
  const kills = new Map<string, number>();
  let goalNumber = 0;

  async function http<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${faults.gatewayUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  /** A goal for the worker alone: it leads (the platform communicator speaks for it) and gets one task. */
  async function submitGoal(members: string[] = [worker.name]): Promise<string> {
    goalNumber += 1;
    const { status, body } = await http<{ id: string }>('POST', '/v1/goals', {
      goal: `${SKILL} number ${goalNumber}.`,
      members,
    });
    expect(status).toBe(202);
    return body.id;
  }

  async function goalOf(goalId: string): Promise<GoalV1> {
    const { status, body } = await http<GoalV1>('GET', `/v1/goals/${goalId}`);
    if (status !== 200) throw new Error(`GET /v1/goals/${goalId} answered ${status}: ${JSON.stringify(body)}`);
    return body;
  }

  async function waitForEnd(goalId: string, timeoutMs = GOAL_TIMEOUT_MS): Promise<GoalV1> {
    try {
      return await waitFor(
        async () => {
          const goal = await goalOf(goalId);
          return ['completed', 'failed', 'canceled'].includes(goal.status) ? goal : undefined;
        },
        { timeoutMs, intervalMs: 200, message: `goal ${goalId} ends` },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await describeGoal(goalId)}`, { cause: error });
    }
  }

  /** Where a goal got stuck: its status and tasks, and its group's last messages (for the failure message). */
  async function describeGoal(goalId: string): Promise<string> {
    try {
      const goal = await goalOf(goalId);
      const tasks = goal.tasks.map((task) => `${task.id} ${task.state}`).join(', ');
      const messages = goal.groupId ? (await messagesOf(goal.groupId)).slice(-8) : [];
      return [
        `goal ${goal.status} (${goal.statusReason ?? 'no reason'}); tasks: ${tasks || 'none'}`,
        ...messages.map(
          (message) => `  #${message.seq} turn ${message.turn} ${message.type}: ${message.content.slice(0, 160)}`,
        ),
        ...(await describeConsumers()),
      ].join('\n');
    } catch (error) {
      return `(could not describe goal ${goalId}: ${String(error)})`;
    }
  }

  /** Each JetStream consumer's backlog: a goal stuck between services usually shows here. */
  async function describeConsumers(): Promise<string[]> {
    const manager = await jetstreamManager(observer);
    const lines: string[] = [];
    for await (const stream of manager.streams.list()) {
      lines.push(`  stream ${stream.config.name}: ${stream.state.messages} messages`);
      for await (const consumer of manager.consumers.list(stream.config.name)) {
        lines.push(
          `    ${consumer.name}: pending ${consumer.num_pending}, unacked ${consumer.num_ack_pending}, ` +
            `redelivered ${consumer.num_redelivered}, ack wait ${(consumer.config.ack_wait ?? 0) / 1e6} ms`,
        );
      }
    }
    return lines;
  }

  async function messagesOf(groupId: string): Promise<ChatMessageV1[]> {
    const messages: ChatMessageV1[] = [];
    for (let afterSeq = 0; ;) {
      const { status, body } = await http<ListMessagesV1Response>(
        'GET',
        `/v1/groups/${groupId}/messages?afterSeq=${afterSeq}&limit=500`,
      );
      expect(status).toBe(200);
      messages.push(...body.items);
      if (body.items.length === 0 || body.lastSeq <= afterSeq) return messages;
      afterSeq = body.items.at(-1)!.seq;
      if (afterSeq >= body.lastSeq) return messages;
    }
  }

  /** The goal completed with every task's result; its group's seq is 1..n without gaps or doubles; one result each. */
  async function expectCompletedWithNothingLost(goalId: string): Promise<void> {
    const goal = await waitForEnd(goalId);
    if (goal.status !== 'completed') {
      throw new Error(`goal ${goalId} ended ${goal.status}: ${goal.statusReason}\n${tailOf(faults.logFile)}`);
    }
    expect(goal.tasks.length).toBeGreaterThan(0);
    for (const task of goal.tasks) {
      expect({ task: task.id, state: task.state }).toEqual({ task: task.id, state: 'completed' });
      expect(task.result).toEqual(expect.stringContaining(task.id));
    }
    const messages = await messagesOf(goal.groupId!);
    expect(messages.map((message) => message.seq)).toEqual(messages.map((_message, index) => index + 1));
    for (const task of goal.tasks) {
      const results = messages.filter(
        (message) => message.type === 'result' && message.tasks?.some((entry) => entry.taskId === task.id),
      );
      expect({ task: task.id, resultNotices: results.length }).toEqual({ task: task.id, resultNotices: 1 });
    }
  }

  async function taskReceived(goalId: string) {
    return waitFor(() => worker.taskOf(goalId), {
      timeoutMs: GOAL_TIMEOUT_MS,
      intervalMs: 100,
      message: `the worker receives the task of goal ${goalId}`,
    });
  }

  function processOf(service: ServiceName) {
    const found = faults.stack.processes().find((entry) => entry.service === service && entry.replica === 1);
    if (!found?.pid) throw new Error(`${service} is not running`);
    return { ...found, pid: found.pid, label: labelOf(service, found.replica) };
  }

  function labelOf(service: ServiceName, replica: number): string {
    const replicas = faults.stack.processes().filter((entry) => entry.service === service).length;
    return replicas > 1 ? `${service}#${replica}` : service;
  }

  /** kill -9 of the service's replica 1, counted so that the suite can tell a kill from an unexpected death. */
  function kill(service: ServiceName): Victim {
    const victim = processOf(service);
    const killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    kills.set(victim.label, (kills.get(victim.label) ?? 0) + 1);
    return { service, replica: victim.replica, pid: victim.pid, label: victim.label, killedAt };
  }

  /** Resolves with the time the launcher's replacement for `victim` said it had started. */
  function replacementStarted(victim: Victim): Promise<number> {
    return waitFor(
      () => {
        const now = faults.stack
          .processes()
          .find((entry) => entry.service === victim.service && entry.replica === victim.replica);
        const started = faults.startedAt.get(victim.label) ?? 0;
        return now?.pid && now.pid !== victim.pid && started > victim.killedAt ? started : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50, message: `${victim.label} is restarted` },
    );
  }

  /** Kills `service` the moment chat grants turn `turn` (or a later one) of `goalId`'s group. */
  function killWhenTurnGranted(goalId: string, turn: number, service: ServiceName): Promise<Victim & { turn: number }> {
    return new Promise((resolve) => {
      const subscription = observer.subscribe(TurnGrantedV1.subject, {
        callback: (error, message) => {
          if (error) return;
          const grant = JSON.parse(new TextDecoder().decode(message.data)) as TurnGrantedV1Event;
          if (grant.goalId !== goalId || grant.turn < turn) return;
          subscription.unsubscribe();
          resolve({ ...kill(service), turn: grant.turn });
        },
      });
    });
  }

  /** The next goal, right after a recovery, with the worker answering at once. */
  async function nextGoalCompletes(): Promise<number> {
    const submittedAt = Date.now();
    worker.autoComplete = true;
    try {
      const goalId = await submitGoal();
      await expectCompletedWithNothingLost(goalId);
    } finally {
      worker.autoComplete = false;
    }
    return Date.now() - submittedAt;
  }

  beforeAll(async () => {
    faults = await startFaultStack();
    process.stdout.write(`fault suite: services log to ${faults.logFile}\n`);
    observer = await connect({
      servers: faults.natsUrl,
      name: 'fault-suite-observer',
      maxReconnectAttempts: -1,
      ...(await faults.natsIdentity('observer')),
    });
    // Until agents speak their identity subjects (ioa.agent.<id>.…), the worker is a hosted agent: it registers,
    // heartbeats and reports over the service subjects, as agent-host's user.
    worker = await FaultWorker.join(faults.natsUrl, 'fault-worker', SKILL, await faults.natsIdentity('agent-host'));
    // The platform is ready for goals once one completes end to end.
    await nextGoalCompletes();
  }, 300_000);

  afterAll(async () => {
    // As wide as the longest scenario, so the printed table lines up in a plain log.
    const width = Math.max('scenario'.length, ...recoveries.map((row) => row.scenario.length));
    const rows = recoveries.map(
      (row) =>
        `| ${row.scenario.padEnd(width)} | ${(row.backMs / 1000).toFixed(1).padStart(7)} | ${(row.goalMs / 1000).toFixed(1).padStart(7)} | ${(row.nextGoalMs / 1000).toFixed(1).padStart(9)} |`,
    );
    process.stdout.write(
      [
        '',
        'Recovery times (s): fault → back up; fault → goal in flight completed; next goal submitted → completed',
        `| ${'scenario'.padEnd(width)} | back up | goal ok | next goal |`,
        `| ${'-'.repeat(width)} | ------: | ------: | --------: |`,
        ...rows,
        '',
      ].join('\n'),
    );
    await worker?.leave().catch(() => undefined);
    await observer?.close().catch(() => undefined);
    await faults?.stop();
  }, 120_000);

  const SERVICES: ServiceName[] = ['chat', 'scheduler', 'registry', 'discovery', 'agent-host', 'gateway'];

  describe.each(SERVICES)('%s', (service) => {
    it(
      'is killed while a task runs (the task ends during the outage); the goal completes, nothing is lost, and the next goal completes',
      async () => {
        const goalId = await submitGoal();
        const task = await taskReceived(goalId);
        const victim = kill(service);
        // The worker reports the result while the service is down, retrying while the platform is unavailable.
        const reported = worker.complete(task.taskId);
        const backAt = await replacementStarted(victim);
        await reported;
        await expectCompletedWithNothingLost(goalId);
        recoveries.push({
          scenario: `${service}: kill -9 while a task runs`,
          backMs: backAt - victim.killedAt,
          goalMs: Date.now() - victim.killedAt,
          nextGoalMs: await nextGoalCompletes(),
        });
      },
      SCENARIO_TIMEOUT_MS,
    );

    it(
      'is killed the moment a turn is granted; the goal completes, nothing is lost, and the next goal completes',
      async () => {
        const goalId = await submitGoal();
        // Turn 2 is the leader's turn after it assigned the task: its communicator (agent-host) is deciding the move.
        const killed = killWhenTurnGranted(goalId, 2, service);
        const task = await taskReceived(goalId);
        const victim = await killed;
        const backAt = await replacementStarted(victim);
        await worker.complete(task.taskId);
        await expectCompletedWithNothingLost(goalId);
        const goalAt = Date.now();
        const group = await goalOf(goalId);
        const moved = (await messagesOf(group.groupId!)).some(
          (message) => message.turn === victim.turn && message.senderId === worker.id,
        );
        recoveries.push({
          scenario: `${service}: kill -9 at turn ${victim.turn} grant${moved ? '' : ' (move lost)'}`,
          backMs: backAt - victim.killedAt,
          goalMs: goalAt - victim.killedAt,
          nextGoalMs: await nextGoalCompletes(),
        });
      },
      SCENARIO_TIMEOUT_MS,
    );
  });

  // The gateway must be up to take a goal and the scheduler to store it (a client retries the 503 meanwhile); every
  // other service may be down when a goal arrives, and the goal must wait for it rather than fail.
  describe.each(['chat', 'registry', 'discovery', 'agent-host'] as ServiceName[])('%s', (service) => {
    it(
      'is down (every replica) when a goal is submitted; the goal completes once it is back',
      async () => {
        const victims: Victim[] = faults.stack
          .processes()
          .filter((entry) => entry.service === service && entry.pid)
          .map((entry) => {
            const label = labelOf(service, entry.replica);
            process.kill(entry.pid!, 'SIGKILL');
            kills.set(label, (kills.get(label) ?? 0) + 1);
            return { service, replica: entry.replica, pid: entry.pid!, label, killedAt: Date.now() };
          });
        worker.autoComplete = true;
        try {
          const goalId = await submitGoal();
          const backAt = Math.max(...(await Promise.all(victims.map(replacementStarted))));
          await expectCompletedWithNothingLost(goalId);
          recoveries.push({
            scenario: `${service}: every replica down at submission`,
            backMs: backAt - victims[0].killedAt,
            goalMs: Date.now() - victims[0].killedAt,
            nextGoalMs: await nextGoalCompletes(),
          });
        } finally {
          worker.autoComplete = false;
        }
      },
      SCENARIO_TIMEOUT_MS,
    );
  });

  it(
    "agent-host is killed while a built-in agent's task runs; the task is picked up again and the goal completes",
    async () => {
      goalNumber += 1;
      // The code runner runs this for ~5 s: long enough to be killed in the middle of it.
      const { status, body } = await http<{ id: string }>('POST', '/v1/goals', {
        goal: `Run \`const end = Date.now() + 5000; while (Date.now() < end); console.log(${goalNumber} * 1000)\`.`,
        members: ['code-runner'],
      });
      expect(status).toBe(202);
      const goalId = body.id;
      await waitFor(
        async () => ((await goalOf(goalId)).tasks.some((task) => task.state === 'working') ? true : undefined),
        { timeoutMs: GOAL_TIMEOUT_MS, intervalMs: 100, message: 'the code runner works on its task' },
      );
      const victim = kill('agent-host');
      const backAt = await replacementStarted(victim);
      const goal = await waitForEnd(goalId);
      if (goal.status !== 'completed') throw new Error(`goal ended ${goal.status}: ${goal.statusReason}`);
      expect(goal.tasks.map((task) => task.state)).toEqual(['completed']);
      expect(goal.tasks[0].result).toContain(String(goalNumber * 1000));
      const messages = await messagesOf(goal.groupId!);
      expect(messages.map((message) => message.seq)).toEqual(messages.map((_message, index) => index + 1));
      recoveries.push({
        scenario: "agent-host: kill -9 while a built-in agent's task runs",
        backMs: backAt - victim.killedAt,
        goalMs: Date.now() - victim.killedAt,
        nextGoalMs: await nextGoalCompletes(),
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it.each([
    ['nats-server', () => faults.restartNats()],
    ['PostgreSQL', () => faults.restartPostgres()],
  ])(
    'survives %s restarted mid-goal',
    async (name, restart) => {
      const goalId = await submitGoal();
      const task = await taskReceived(goalId);
      const faultAt = Date.now();
      await restart();
      const backAt = Date.now();
      await worker.complete(task.taskId);
      await expectCompletedWithNothingLost(goalId);
      recoveries.push({
        scenario: `${name} restarted mid-goal`,
        backMs: backAt - faultAt,
        goalMs: Date.now() - faultAt,
        nextGoalMs: await nextGoalCompletes(),
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'fails the task of an external agent that dies mid-task within the heartbeat TTL, and the goal still ends',
    async () => {
      const mortal = await FaultWorker.join(
        faults.natsUrl,
        'fault-mortal',
        SKILL,
        await faults.natsIdentity('agent-host'),
      );
      const goalId = await submitGoal([mortal.name]);
      await waitFor(() => mortal.taskOf(goalId), { timeoutMs: GOAL_TIMEOUT_MS, message: 'the task arrives' });
      const diedAt = Date.now();
      await mortal.die();
      const ttlMs = Number(FAULT_ENVIRONMENT.REGISTRY_HEARTBEAT_TTL_SECONDS) * 1000;
      const ended = await waitFor(
        async () => {
          const goal = await goalOf(goalId);
          return goal.tasks.every((task) => ['failed', 'canceled', 'completed', 'rejected'].includes(task.state))
            ? goal
            : undefined;
        },
        // Within the TTL, plus the presence sweep and one heartbeat period of the agent (the last one it sent).
        { timeoutMs: ttlMs + 10_000, intervalMs: 100, message: 'the dead agent’s task ends' },
      );
      const endedAt = Date.now();
      expect(ended.tasks.map((task) => task.state)).toEqual(['failed']);
      const goal = await waitForEnd(goalId);
      expect(goal.status).toBe('completed');
      const messages = await messagesOf(goal.groupId!);
      expect(messages.map((message) => message.seq)).toEqual(messages.map((_message, index) => index + 1));
      recoveries.push({
        scenario: 'external agent died mid-task',
        backMs: endedAt - diedAt,
        goalMs: Date.now() - diedAt,
        nextGoalMs: await nextGoalCompletes(),
      });
    },
    SCENARIO_TIMEOUT_MS,
  );

  it('saw no process die that it did not kill', () => {
    const deaths = faults.stack
      .processes()
      .filter((entry) => entry.restarts > 0)
      .map((entry) => ({ label: labelOf(entry.service, entry.replica), deaths: entry.restarts }))
      .sort(byLabel);
    expect(deaths).toEqual([...kills.entries()].map(([label, count]) => ({ label, deaths: count })).sort(byLabel));
  });
});

function byLabel(left: { label: string }, right: { label: string }): number {
  return left.label.localeCompare(right.label);
}
