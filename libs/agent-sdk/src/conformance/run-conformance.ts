// class-transformer's @Type in the contract classes needs the Reflect metadata API, loaded before they are.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  AssignTaskV1,
  ProposeMoveV1Request,
  RegisterAgentV1Request,
  ReportTaskV1Request,
  TaskAssignmentV1Response,
  TaskCanceledV1,
  TurnGrantedToAgentV1,
  TurnGrantedV1,
  subjectFor,
  type TaskAssignmentV1Request,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { decodeJson, encodeJson, violationsOf } from '../nats-wire.js';
import { StandInPlatform, type Observation } from './stand-in-platform.js';

/**
 * The conformance rules: what every agent on the network must do, checked by driving a running agent through the
 * contract. Stable ids (docs/architecture.md lists them); each result carries the evidence it was judged on.
 */
export const CONFORMANCE_RULES = [
  { id: 'registration.card-valid', title: 'registers a card the registry accepts, with a NATS endpoint' },
  { id: 'heartbeat.within-ttl', title: 'heartbeats at intervals shorter than the TTL the registry gave it' },
  { id: 'heartbeat.reregisters-when-forgotten', title: 'registers again when a heartbeat is answered NOT_FOUND' },
  { id: 'task.acknowledged', title: 'acknowledges a task at once with {accepted: true}' },
  { id: 'task.progress', title: 'reports `working` with a progress note before the outcome' },
  { id: 'task.result', title: 'reports the outcome (`completed` with a result) in a valid report' },
  { id: 'task.malformed-json', title: 'answers a task that is not JSON with a structured error, nothing else' },
  { id: 'task.invalid-assignment', title: 'answers an invalid assignment with VALIDATION_FAILED and runs nothing' },
  { id: 'task.cancel', title: 'stops reporting on a task once it is canceled (INVALID_STATE ends it)' },
  { id: 'presence.survives-registry-outage', title: 'keeps heartbeating and serving after the registry was silent' },
  { id: 'turn.answers-own-turn', title: 'answers its own turn with a valid move before the deadline (self-speakers)' },
  { id: 'turn.ignores-other-turns', title: "leaves the other members' turns alone (self-speakers)" },
] as const;

export type ConformanceRuleId = (typeof CONFORMANCE_RULES)[number]['id'];

export interface RuleResult {
  id: ConformanceRuleId;
  title: string;
  status: 'pass' | 'fail' | 'skip';
  evidence: string;
}

export interface ConformanceOptions {
  /** NATS URL(s) of a broker on which the agent runs and the platform does not (the kit plays the platform). */
  servers?: string | string[];
  connection?: NatsConnection;
  /** The agent's card name. */
  agent: string;
  /** The TTL the kit hands out at registration (short, so the heartbeat rules take seconds). Default 6. */
  ttlSeconds?: number;
  /** How long to wait for the agent to register. Default 60. */
  waitSeconds?: number;
  /** How long a task may take before its result rule fails. Default 30. */
  taskSeconds?: number;
  /** Called with each result as soon as it is known. */
  onResult?: (result: RuleResult) => void;
}

const REPLY_TIMEOUT_MS = 5000;

/**
 * Drives a running agent through the contract and judges every rule. Resolves with one result per rule, in the
 * order of `CONFORMANCE_RULES`; the agent conforms when none failed.
 */
export async function runConformance(options: ConformanceOptions): Promise<RuleResult[]> {
  const connection =
    options.connection ?? (await connect({ servers: options.servers ?? 'nats://127.0.0.1:4222', name: 'ioa-kit' }));
  const ttlSeconds = options.ttlSeconds ?? 6;
  const platform = new StandInPlatform(connection, ttlSeconds);
  const results: RuleResult[] = [];
  const record = (id: ConformanceRuleId, status: RuleResult['status'], evidence: string) => {
    const rule = CONFORMANCE_RULES.find((candidate) => candidate.id === id)!;
    const result = { id, title: rule.title, status, evidence };
    results.push(result);
    options.onResult?.(result);
  };
  try {
    await platform.open();
    const session = new ConformanceSession(connection, platform, options.agent, ttlSeconds, record);
    await session.run(options.waitSeconds ?? 60, options.taskSeconds ?? 30);
  } finally {
    platform.close();
    if (!options.connection) await connection.close();
  }
  // Rules that never got their turn (the agent never registered) fail, so the verdict cannot be a silent pass.
  for (const rule of CONFORMANCE_RULES) {
    if (!results.some((result) => result.id === rule.id)) {
      record(rule.id, 'fail', 'not checked: an earlier rule it depends on failed');
    }
  }
  return CONFORMANCE_RULES.map((rule) => results.find((result) => result.id === rule.id)!);
}

type Recorder = (id: ConformanceRuleId, status: RuleResult['status'], evidence: string) => void;

class ConformanceSession {
  private agentId = '';
  private card: Record<string, unknown> = {};

  constructor(
    private readonly connection: NatsConnection,
    private readonly platform: StandInPlatform,
    private readonly agentName: string,
    private readonly ttlSeconds: number,
    private readonly record: Recorder,
  ) {}

  async run(waitSeconds: number, taskSeconds: number): Promise<void> {
    if (!(await this.registration(waitSeconds))) return;
    await this.heartbeats();
    await this.forgotten();
    await this.task(taskSeconds);
    await this.malformed();
    await this.cancel();
    await this.outage();
    await this.turns();
  }

  private registrationsOfAgent(since = 0): Observation[] {
    return this.platform.of('register', since).filter((observation) => observation.body.name === this.agentName);
  }

  /** Waits for the agent's registration; a heartbeat from an id the kit never gave out is answered NOT_FOUND. */
  private async registration(waitSeconds: number): Promise<boolean> {
    const registration = await until(() => this.registrationsOfAgent()[0], waitSeconds * 1000);
    if (!registration) {
      const heartbeats = this.platform.of('heartbeat').length;
      this.record(
        'registration.card-valid',
        'fail',
        `no registration named "${this.agentName}" within ${waitSeconds} s (${heartbeats} heartbeat(s) answered NOT_FOUND meanwhile)`,
      );
      return false;
    }
    this.agentId = this.platform.idOf(this.agentName)!;
    this.card = registration.body;
    const violations = await violationsOf(RegisterAgentV1Request, registration.body);
    const endpoint = (registration.body.endpoint ?? {}) as { kind?: unknown };
    if (violations.length > 0) {
      this.record('registration.card-valid', 'fail', `the registry would refuse it: ${describeViolations(violations)}`);
    } else if (endpoint.kind !== 'nats') {
      this.record('registration.card-valid', 'fail', `endpoint.kind is "${String(endpoint.kind)}", not "nats"`);
    } else {
      const skills = (registration.body.skills as unknown[]).length;
      this.record(
        'registration.card-valid',
        'pass',
        `valid card, ${skills} skill(s), endpoint nats; id ${this.agentId}`,
      );
    }
    return true;
  }

  private heartbeatsOfAgent(since: number): Observation[] {
    return this.platform.of('heartbeat', since).filter((observation) => observation.body.id === this.agentId);
  }

  /** Three heartbeats in a row, each gap (from the registration on) shorter than the TTL. */
  private async heartbeats(): Promise<void> {
    const start = this.registrationsOfAgent().at(-1)!.at;
    const ttlMs = this.ttlSeconds * 1000;
    const seen = await until(() => {
      const beats = this.heartbeatsOfAgent(start);
      const last = beats.at(-1)?.at ?? start;
      // Stop early once a gap already exceeds the TTL: the verdict is known.
      return beats.length >= 3 || Date.now() - last > ttlMs ? beats : undefined;
    }, ttlMs * 3);
    const times = [start, ...(seen ?? []).map((beat) => beat.at)];
    const gaps = times.slice(1).map((time, index) => time - times[index]);
    const longest = Math.max(0, ...gaps);
    if ((seen?.length ?? 0) >= 3 && longest < ttlMs) {
      this.record('heartbeat.within-ttl', 'pass', `gaps ${gaps.map(seconds).join(', ')} (TTL ${this.ttlSeconds} s)`);
    } else {
      this.record(
        'heartbeat.within-ttl',
        'fail',
        `${seen?.length ?? 0} heartbeat(s) after registration, gaps ${gaps.map(seconds).join(', ') || 'none'} (TTL ${this.ttlSeconds} s)`,
      );
    }
  }

  private async forgotten(): Promise<void> {
    const since = Date.now();
    this.platform.heartbeatMode = 'not-found-once';
    const ttlMs = this.ttlSeconds * 1000;
    const refused = await until(() => this.heartbeatsOfAgent(since).find((beat) => beat.answer === 'NOT_FOUND'), ttlMs);
    this.platform.heartbeatMode = 'answer';
    if (!refused) {
      this.record('heartbeat.reregisters-when-forgotten', 'fail', `no heartbeat within the TTL to answer NOT_FOUND`);
      return;
    }
    const again = await until(() => this.registrationsOfAgent(refused.at)[0], ttlMs);
    this.record(
      'heartbeat.reregisters-when-forgotten',
      again ? 'pass' : 'fail',
      again
        ? `registered again ${seconds(again.at - refused.at)} after the NOT_FOUND`
        : `no registration within the TTL (${this.ttlSeconds} s) after the NOT_FOUND`,
    );
  }

  private assignment(description: string): TaskAssignmentV1Request {
    return {
      taskId: randomUUID(),
      goalId: randomUUID(),
      groupId: randomUUID(),
      agentId: this.agentId,
      brief: {
        abstract: 'A conformance check task.',
        inputs: '',
        description,
        completionCriteria: 'Any short text answer.',
      },
      deadline: new Date(Date.now() + 120_000).toISOString(),
      depth: 0,
      maxDepth: 1,
      attempt: 1,
    };
  }

  /** Sends raw bytes to the agent's task subject; the decoded reply, or a description of what went wrong. */
  private async sendTask(body: Uint8Array): Promise<{ reply?: Record<string, unknown>; problem?: string }> {
    try {
      const message = await this.connection.request(subjectFor(AssignTaskV1, this.agentId), body, {
        timeout: REPLY_TIMEOUT_MS,
      });
      const reply = decodeJson(message.data);
      if (typeof reply !== 'object' || reply === null) return { problem: `the reply is not a JSON object` };
      return { reply: reply as Record<string, unknown> };
    } catch (error) {
      return { problem: `no reply within ${REPLY_TIMEOUT_MS / 1000} s (${errorText(error)})` };
    }
  }

  private reportsOn(taskId: string): Observation[] {
    return this.platform.of('report').filter((observation) => observation.body.taskId === taskId);
  }

  private async task(taskSeconds: number): Promise<void> {
    const task = this.assignment('Conformance check: say hello in one short sentence.');
    const { reply, problem } = await this.sendTask(encodeJson(task));
    const acknowledged = reply?.ok === true && (reply.data as { accepted?: unknown })?.accepted === true;
    const responseProblems = reply?.ok === true ? await violationsOf(TaskAssignmentV1Response, reply.data) : [];
    if (acknowledged && responseProblems.length === 0) {
      this.record('task.acknowledged', 'pass', `{ok: true, data: ${JSON.stringify(reply.data)}}`);
    } else {
      this.record('task.acknowledged', 'fail', problem ?? `answered ${JSON.stringify(reply)}`);
      this.record('task.progress', 'fail', 'not checked: the task was not acknowledged');
      this.record('task.result', 'fail', 'not checked: the task was not acknowledged');
      return;
    }
    const outcome = await until(
      () => this.reportsOn(task.taskId).find((report) => report.body.state !== 'working'),
      taskSeconds * 1000,
    );
    const reports = this.reportsOn(task.taskId);
    const firstWorking = reports.findIndex((report) => report.body.state === 'working');
    const outcomeIndex = outcome ? reports.indexOf(outcome) : reports.length;
    const note = reports[firstWorking]?.body.content;
    this.record(
      'task.progress',
      firstWorking >= 0 && firstWorking < outcomeIndex && typeof note === 'string' && note.length > 0 ? 'pass' : 'fail',
      firstWorking >= 0 ? `working: ${excerpt(JSON.stringify(note ?? ''))}` : `no working report before the outcome`,
    );
    if (!outcome) {
      this.record('task.result', 'fail', `no outcome reported within ${taskSeconds} s`);
      return;
    }
    const violations = await violationsOf(ReportTaskV1Request, outcome.body);
    const content = outcome.body.content;
    if (violations.length > 0) {
      this.record('task.result', 'fail', `invalid report: ${describeViolations(violations)}`);
    } else if (outcome.body.agentId !== this.agentId) {
      this.record('task.result', 'fail', `reported as agent ${String(outcome.body.agentId)}, not ${this.agentId}`);
    } else if (outcome.body.state !== 'completed' || typeof content !== 'string' || content.trim() === '') {
      this.record(
        'task.result',
        'fail',
        `reported ${String(outcome.body.state)} ${excerpt(JSON.stringify(content ?? ''))}`,
      );
    } else {
      this.record('task.result', 'pass', `completed: "${excerpt(content)}"`);
    }
  }

  private async malformed(): Promise<void> {
    const before = this.platform.of('report').length;
    const notJson = await this.sendTask(new TextEncoder().encode('{"taskId": this is not JSON'));
    const notJsonError = (notJson.reply?.error ?? {}) as { code?: string; message?: string };
    const structured =
      notJson.reply?.ok === false && ['MALFORMED_PAYLOAD', 'VALIDATION_FAILED'].includes(`${notJsonError.code}`);
    this.record(
      'task.malformed-json',
      structured ? 'pass' : 'fail',
      notJson.problem ?? `answered ${excerpt(JSON.stringify(notJson.reply))}`,
    );

    const invalid = await this.sendTask(encodeJson({ taskId: 'not-a-uuid', brief: 'not an object' }));
    const invalidError = (invalid.reply?.error ?? {}) as { code?: string };
    const refused = invalid.reply?.ok === false && invalidError.code === 'VALIDATION_FAILED';
    // Whatever it ran would show up as a report: give a (wrongly) started task a moment to report, then look.
    await until(() => (this.platform.of('report').length > before ? true : undefined), 1000);
    const reportsSince = this.platform.of('report').length - before;
    this.record(
      'task.invalid-assignment',
      refused && reportsSince === 0 ? 'pass' : 'fail',
      invalid.problem ??
        `answered ${excerpt(JSON.stringify(invalid.reply))}${reportsSince > 0 ? `; then sent ${reportsSince} report(s)` : ''}`,
    );
  }

  /**
   * Cancels a task right after its acknowledgement, as the scheduler does when a goal is canceled, and refuses any
   * later report on it with INVALID_STATE. A report already on its way is forgiven; another after the refusal is not.
   */
  private async cancel(): Promise<void> {
    const task = this.assignment('Conformance check: take your time over this one; it will be canceled.');
    const { reply, problem } = await this.sendTask(encodeJson(task));
    if (reply?.ok !== true) {
      this.record('task.cancel', 'fail', problem ?? `the task was not acknowledged: ${JSON.stringify(reply)}`);
      return;
    }
    this.platform.closedTasks.add(task.taskId);
    // By position, not time: a report read in the same millisecond as the acknowledgement came before the cancel.
    const seenBefore = this.platform.observations.length;
    const afterCancel = () =>
      this.platform.observations
        .slice(seenBefore)
        .filter((observation) => observation.kind === 'report' && observation.body.taskId === task.taskId);
    this.connection.publish(
      subjectFor(TaskCanceledV1, this.agentId),
      encodeJson({ taskId: task.taskId, reason: 'canceled by the conformance kit' }),
    );
    // The agent may have a report in flight; give it time to arrive, be refused, and (wrongly) be followed by more.
    const windowMs = 3000;
    await until(() => (afterCancel().length > 1 ? true : undefined), windowMs);
    const after = afterCancel();
    const states = after.map((report) => `${String(report.body.state)} → ${report.answer}`);
    this.record(
      'task.cancel',
      after.length <= 1 ? 'pass' : 'fail',
      after.length === 0
        ? `no report after the cancel (observed for ${seconds(windowMs)})`
        : `after the cancel: ${states.join(', ')}`,
    );
  }

  /** The registry stops answering for one TTL; then the agent must be back: a heartbeat answered, a task acknowledged. */
  private async outage(): Promise<void> {
    const ttlMs = this.ttlSeconds * 1000;
    const silentSince = Date.now();
    this.platform.heartbeatMode = 'silent';
    const unanswered = await until(
      () => this.heartbeatsOfAgent(silentSince).find((beat) => beat.answer === 'unanswered'),
      ttlMs,
    );
    this.platform.heartbeatMode = 'answer';
    const resumedAt = Date.now();
    const answered = await until(
      () => this.heartbeatsOfAgent(resumedAt).find((beat) => beat.answer === 'ok'),
      ttlMs + REPLY_TIMEOUT_MS,
    );
    const { reply } = await this.sendTask(encodeJson(this.assignment('Conformance check: are you still there?')));
    const stillServing = reply?.ok === true;
    this.record(
      'presence.survives-registry-outage',
      unanswered && answered && stillServing ? 'pass' : 'fail',
      [
        unanswered ? 'a heartbeat went unanswered' : 'no heartbeat during the silence',
        answered
          ? `heartbeat answered ${seconds(answered.at - resumedAt)} after the registry came back`
          : 'no heartbeat after it came back',
        stillServing ? 'a new task was acknowledged' : 'a new task was not acknowledged',
      ].join('; '),
    );
  }

  private grant(speakerId: string, groupId: string): TurnGrantedV1Event {
    return {
      groupId,
      goalId: randomUUID(),
      goal: 'Conformance check: say hello to the group.',
      turn: 1,
      maxTurns: 12,
      speakerId,
      leaderId: speakerId,
      mustConclude: false,
      reason: 'first turn',
      deadline: new Date(Date.now() + 10_000).toISOString(),
      members: [],
      recentMessages: [],
      tasks: [],
    };
  }

  private async turns(): Promise<void> {
    const metadata = (this.card.metadata ?? {}) as { communicator?: unknown };
    if (metadata.communicator !== 'self') {
      const why = 'the card does not say metadata.communicator: "self" (the platform speaks for it)';
      this.record('turn.answers-own-turn', 'skip', why);
      this.record('turn.ignores-other-turns', 'skip', why);
      return;
    }
    const otherGroup = randomUUID();
    const ownGroup = randomUUID();
    const since = Date.now();
    const ownGrant = this.grant(this.agentId, ownGroup);
    this.connection.publish(TurnGrantedV1.subject, encodeJson(this.grant(randomUUID(), otherGroup)));
    // The grant goes where either kind of agent listens: the stream subject (an agent without an identity filters
    // it by speakerId) and the agent's own subject (one with an identity is delivered its turns there).
    this.connection.publish(TurnGrantedV1.subject, encodeJson(ownGrant));
    this.connection.publish(subjectFor(TurnGrantedToAgentV1, this.agentId), encodeJson(ownGrant));
    const movesIn = (groupId: string) =>
      this.platform.of('move', since).filter((observation) => observation.body.groupId === groupId);
    const move = await until(() => movesIn(ownGroup)[0], Date.parse(ownGrant.deadline) - Date.now());
    if (!move) {
      this.record('turn.answers-own-turn', 'fail', 'no move before the deadline (10 s)');
    } else {
      const violations = await violationsOf(ProposeMoveV1Request, move.body);
      const right = move.body.speakerId === this.agentId && move.body.turn === ownGrant.turn;
      this.record(
        'turn.answers-own-turn',
        violations.length === 0 && right ? 'pass' : 'fail',
        violations.length > 0
          ? `invalid move: ${describeViolations(violations)}`
          : `${String(move.body.type)} "${excerpt(String(move.body.content))}" after ${seconds(move.at - since)}${right ? '' : ' (wrong speakerId or turn)'}`,
      );
    }
    const intruding = movesIn(otherGroup);
    this.record(
      'turn.ignores-other-turns',
      intruding.length === 0 ? 'pass' : 'fail',
      intruding.length === 0
        ? "no move in the other member's group"
        : `moved in a group where it did not hold the turn`,
    );
  }
}

/** Polls `probe` every 50 ms until it returns a value or `timeoutMs` passes. */
async function until<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function excerpt(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function describeViolations(violations: Array<{ property: string; constraints: string[] }>): string {
  return violations
    .slice(0, 4)
    .map((violation) => `${violation.property}: ${violation.constraints.join(', ')}`)
    .join('; ');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
