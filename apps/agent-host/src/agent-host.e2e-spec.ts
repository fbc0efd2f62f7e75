import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import {
  AssignTaskV1,
  ProposeMoveV1Request,
  subjectFor,
  TaskCanceledV1,
  TurnGrantedV1,
  type GroupTaskV1,
  type ReportTaskV1Request,
  type TaskAssignmentV1Request,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { createService, validatePayload } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { AgentHostModule } from './agent-host.module.js';
import { DocumentIndexService } from './agents/doc-researcher/document-index.service.js';
import { PlatformCommunicatorService } from './communicator/platform-communicator.service.js';
import { TaskDispatchService } from './tasks/task-dispatch.service.js';
import {
  refuse,
  startFakeChat,
  startFakeRegistry,
  startFakeScheduler,
  type FakeChat,
  type FakeRegistry,
  type FakeScheduler,
} from './testing/platform-fakes.js';
import { newTaskAssignment, newTurnGrant } from './testing/work-factories.js';

const newAssignment = newTaskAssignment;

describe('agent-host (real NATS and database; registry, scheduler and chat answered over raw NATS)', () => {
  let infrastructure: TestInfrastructure;
  let service: INestMicroservice;
  let external: NatsConnection;
  let registry: FakeRegistry;
  let scheduler: FakeScheduler;
  let chat: FakeChat;
  const ids = { codeRunner: '', researcher: '', writer: '' };

  // Booting real infrastructure and services is slow on a loaded machine (hence the hook timeout); tests are not.
  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ AGENT_HOST_HEARTBEAT_MS: '200', AGENT_HOST_CODE_TIMEOUT_MS: '8000' });
    external = await connectRaw(infrastructure.natsUrl);
    registry = startFakeRegistry(external);
    scheduler = startFakeScheduler(external);
    chat = startFakeChat(external);
    await external.flush();
    service = await createService(AgentHostModule, { name: 'agent-host', logger: false });
    await expectEventually(() => registry.cards.size === 3, { message: 'the three agents register' });
    ids.codeRunner = registry.idOf('code-runner') as string;
    ids.researcher = registry.idOf('doc-researcher') as string;
    ids.writer = registry.idOf('writer') as string;
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    await external?.close();
    await infrastructure?.stop();
  });

  async function assign(assignment: TaskAssignmentV1Request) {
    return rawRequest(external, subjectFor(AssignTaskV1, assignment.agentId), assignment);
  }

  async function finalReport(taskId: string): Promise<ReportTaskV1Request> {
    return expectEventually<ReportTaskV1Request | undefined>(
      () => scheduler.reportsOf(taskId).find((report) => report.state !== 'working'),
      { message: `task ${taskId} is reported finished`, timeoutMs: 20_000 },
    ) as Promise<ReportTaskV1Request>;
  }

  describe('registration', () => {
    it('registers the three built-in agents like any agent: owner, NATS endpoint, skills with tags and examples', () => {
      expect(registry.registrations.map((card) => card.name).sort()).toEqual([
        'code-runner',
        'doc-researcher',
        'writer',
      ]);
      for (const card of registry.registrations) {
        expect(card).toMatchObject({ owner: 'ioa-builtin', endpoint: { kind: 'nats' } });
        expect(card.skills[0].tags.length).toBeGreaterThan(2);
        expect(card.skills[0].examples.length).toBeGreaterThan(0);
      }
    });

    it('heartbeats every agent within the TTL', async () => {
      await expectEventually(() =>
        [ids.codeRunner, ids.researcher, ids.writer].every((id) => (registry.heartbeats.get(id) ?? 0) >= 3),
      );
    });

    it('registers again when a heartbeat gets NOT_FOUND, and serves the new id', async () => {
      const oldId = ids.writer;
      registry.forget(oldId);
      const newId = (await expectEventually(() => registry.idOf('writer'))) as string;
      expect(newId).not.toBe(oldId);
      ids.writer = newId;
      const assignment = newAssignment(newId, {
        abstract: 'Report',
        description: 'Compose a report',
        inputs: '### a: b\nc',
      });
      // The registry knows the new id a moment before the agent serves it (the id is minted by the registry, the
      // subscription follows the reply): the scheduler retries such a dispatch, and so does this test.
      expect(await expectEventually(() => assign(assignment), { message: 'the new id is never served' })).toEqual({
        ok: true,
        data: { accepted: true },
      });
      expect(await finalReport(assignment.taskId)).toMatchObject({ state: 'completed' });
    });
  });

  describe('tasks', () => {
    it('code-runner: acknowledges at once, reports working, then the output as the result', async () => {
      const assignment = newAssignment(ids.codeRunner, {
        description: 'Run `console.log([3, 1, 2].sort().join(","))`',
      });
      expect(await assign(assignment)).toEqual({ ok: true, data: { accepted: true } });
      const report = await finalReport(assignment.taskId);
      expect(scheduler.reportsOf(assignment.taskId)[0]).toMatchObject({ state: 'working', agentId: ids.codeRunner });
      expect(report).toMatchObject({
        state: 'completed',
        content: expect.stringMatching(/^1,2,3\n\n\(exit code 0, \d+ ms\)$/),
      });
    });

    it('retries a report the scheduler cannot take yet (4 attempts, 200 ms then 1 s then 3 s apart)', async () => {
      scheduler.reportScript.push(
        refuse('UNAVAILABLE', 'scheduler restarting'),
        refuse('UNAVAILABLE', 'scheduler restarting'),
      );
      const assignment = newAssignment(ids.codeRunner, { description: 'Run `console.log("kept")`' });
      const sentAt = Date.now();
      await assign(assignment);
      expect(await finalReport(assignment.taskId)).toMatchObject({ state: 'completed' });
      // The `working` report was sent three times, the last one taken after both backoffs.
      expect(scheduler.reportsOf(assignment.taskId).map((report) => report.state)).toEqual([
        'working',
        'working',
        'working',
        'completed',
      ]);
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1200);
    });

    it('code-runner: reports a failing script as failed, with its error', async () => {
      const assignment = newAssignment(ids.codeRunner, {
        description: 'Run ```js\nthrow new RangeError("out of range")\n```',
      });
      await assign(assignment);
      expect(await finalReport(assignment.taskId)).toMatchObject({
        state: 'failed',
        content: expect.stringContaining('RangeError: out of range'),
      });
    });

    it('code-runner: two 4 GiB allocations at once both fail cleanly with the memory limit, and it keeps serving', async () => {
      const hostile = () =>
        newAssignment(ids.codeRunner, { description: 'Run `new Uint8Array(4 * 2 ** 30).fill(1).length`' });
      const pair = [hostile(), hostile()];
      await Promise.all(pair.map((assignment) => assign(assignment)));
      for (const assignment of pair) {
        expect(await finalReport(assignment.taskId)).toMatchObject({
          state: 'failed',
          content: expect.stringContaining('stopped: out of memory (limits: 64 MB heap, 256 MB in all)'),
        });
      }
      const after = newAssignment(ids.codeRunner, { description: 'Run `console.log("still serving")`' });
      await assign(after);
      expect(await finalReport(after.taskId)).toMatchObject({ state: 'completed', content: /^still serving\n/ });
    });

    it('code-runner: rejects a brief without code', async () => {
      const assignment = newAssignment(ids.codeRunner, { description: 'Compute something clever' });
      await assign(assignment);
      expect(await finalReport(assignment.taskId)).toMatchObject({ state: 'rejected' });
    });

    it('a cancel kills a long-running code task, and nothing is reported afterwards', async () => {
      const dispatch = service.get(TaskDispatchService);
      const assignment = newAssignment(ids.codeRunner, { description: 'Run `setInterval(() => {}, 1000)`' });
      await assign(assignment);
      await expectEventually(() => scheduler.reportsOf(assignment.taskId).some((report) => report.state === 'working'));
      external.publish(
        subjectFor(TaskCanceledV1, ids.codeRunner),
        JSON.stringify({ taskId: assignment.taskId, reason: 'Goal canceled' }),
      );
      await expectEventually(() => !dispatch.activeTaskIds().includes(assignment.taskId), { timeoutMs: 5000 });
      expect(scheduler.reportsOf(assignment.taskId).map((report) => report.state)).toEqual(['working']);
    });

    it('a slow task does not hold up other tasks of the same agent or of other agents', async () => {
      const slow = newAssignment(ids.codeRunner, {
        description: 'Run `new Promise((resolve) => setTimeout(() => resolve("slow done"), 3000))`',
      });
      const fast = newAssignment(ids.codeRunner, { description: 'Run `console.log("fast done")`' });
      const report = newAssignment(ids.writer, {
        abstract: 'Report',
        description: 'Compose a report',
        inputs: '### x: y\nz',
      });
      await assign(slow);
      await expectEventually(() => scheduler.reportsOf(slow.taskId).length > 0);
      await Promise.all([assign(fast), assign(report)]);
      expect(await finalReport(fast.taskId)).toMatchObject({
        state: 'completed',
        content: expect.stringContaining('fast done'),
      });
      expect(await finalReport(report.taskId)).toMatchObject({ state: 'completed' });
      expect(scheduler.reportsOf(slow.taskId).map((entry) => entry.state)).toEqual(['working']);
      expect(await finalReport(slow.taskId)).toMatchObject({
        state: 'completed',
        content: expect.stringContaining('slow done'),
      });
    });

    it('doc-researcher: indexed the shipped documents at boot, and answers with the right document first', async () => {
      const index = service.get(DocumentIndexService);
      const again = await index.synchronize();
      expect(again.indexed).toEqual([]);
      expect(again.unchanged).toEqual(
        expect.arrayContaining(['presence.md', 'group-chat.md', 'pgvector.md', 'subjects.md']),
      );

      const assignment = newAssignment(ids.researcher, {
        description: 'Find in the documents how agents send heartbeats and when they go offline after the TTL',
      });
      await assign(assignment);
      const report = await finalReport(assignment.taskId);
      expect(report.state).toBe('completed');
      expect(report.content).toMatch(
        /^Passages answering "how agents send heartbeats and when they go offline after the TTL":\n\n1\. \*\*Agent presence and heartbeats/,
      );
      expect(report.content).toMatch(/source: presence\.md/);

      const passages = await index.search('Which operator gives the cosine distance in pgvector?', 3);
      expect(passages[0]).toMatchObject({ source: 'pgvector.md' });
    });

    it('writer: composes a report from the inputs through the (offline) model, with its usage', async () => {
      const assignment = newAssignment(ids.writer, {
        abstract: 'Compose a report from the results',
        description: 'Compose a report from the results below.\n\nGoal: explain presence. In short.',
        inputs:
          '### code-runner: Compute\n24133\n\n### doc-researcher: Presence\nAgents heartbeat.\nSilent agents go offline.',
      });
      await assign(assignment);
      const report = await finalReport(assignment.taskId);
      expect(report.state).toBe('completed');
      expect(report.content).toBe(
        [
          '# Report: explain presence.',
          '## Summary',
          '- 2 result(s): code-runner: Compute; doc-researcher: Presence',
          '## code-runner: Compute',
          '- 24133',
          '## doc-researcher: Presence',
          '- Agents heartbeat. Silent agents go offline.',
        ].join('\n\n'),
      );
      expect(report.usage).toMatchObject({ modelCalls: 1, promptTokens: expect.any(Number) });
    });

    it('refuses invalid assignments, assignments for another agent, and runs a repeated dispatch once', async () => {
      const invalid = await rawRequest(external, subjectFor(AssignTaskV1, ids.codeRunner), { taskId: 'nope' });
      expect(invalid).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });

      const misaddressed = newAssignment(ids.writer, { description: 'x' });
      expect(await rawRequest(external, subjectFor(AssignTaskV1, ids.codeRunner), misaddressed)).toMatchObject({
        ok: true,
        data: { accepted: false, reason: expect.stringContaining(ids.codeRunner) },
      });

      const twice = newAssignment(ids.codeRunner, { description: 'Run `console.log("once")`' });
      await Promise.all([assign(twice), assign(twice)]);
      await finalReport(twice.taskId);
      expect(scheduler.reportsOf(twice.taskId).map((report) => report.state)).toEqual(['working', 'completed']);
    });

    it('forms a sub-team when the brief asks for one and depth allows, without waiting for it', async () => {
      const assignment = newAssignment(
        ids.researcher,
        { description: 'Form a sub-team to research how presence works and write a summary' },
        { depth: 0, maxDepth: 1 },
      );
      await assign(assignment);
      const goal = await expectEventually(() =>
        scheduler.goals.find((entry) => entry.parentTaskId === assignment.taskId),
      );
      expect(goal).toMatchObject({ goal: 'Research how presence works and write a summary', maxDepth: 1 });
      await expectEventually(() => scheduler.reportsOf(assignment.taskId).length === 2);
      expect(scheduler.reportsOf(assignment.taskId)).toEqual([
        expect.objectContaining({ state: 'working' }),
        expect.objectContaining({
          state: 'working',
          content: expect.stringContaining('Formed a sub-team'),
          usage: expect.objectContaining({ modelCalls: 1 }),
        }),
      ]);
    });
  });

  describe('platform communicator', () => {
    const newTurn = (overrides: Partial<TurnGrantedV1Event> = {}): TurnGrantedV1Event =>
      newTurnGrant(
        [
          { agentId: ids.codeRunner, name: 'code-runner' },
          { agentId: ids.researcher, name: 'doc-researcher' },
          { agentId: ids.writer, name: 'writer' },
        ],
        overrides,
      );

    const proposalsFor = (groupId: string) => chat.proposals.filter((proposal) => proposal.groupId === groupId);

    it('answers a TurnGrantedV1 from the chat stream with a valid move and its usage', async () => {
      const turn = newTurn();
      await jetstream(external).publish(TurnGrantedV1.subject, JSON.stringify(turn));
      await expectEventually(() => proposalsFor(turn.groupId).length > 0);
      const [proposal] = proposalsFor(turn.groupId);
      await expect(validatePayload(ProposeMoveV1Request, proposal)).resolves.toBeDefined();
      expect(proposal).toMatchObject({
        speakerId: ids.codeRunner,
        turn: 1,
        type: 'async_task_assign',
        nextSpeaker: ids.codeRunner,
        tasks: [
          { assigneeId: ids.codeRunner, description: 'Run `console.log(6 * 7)`' },
          { assigneeId: ids.researcher, description: 'find in the documents how presence works' },
        ],
        usage: { modelCalls: 1 },
      });
    });

    it('proposes again with the rejection fed back when the chat refuses a move for the current turn', async () => {
      const turn = newTurn();
      chat.groups.set(turn.groupId, { turn: 1, currentSpeaker: ids.codeRunner });
      chat.script.push(refuse('INVALID_STATE', 'Task assignee must be a member of the group'));
      const outcome = await service.get(PlatformCommunicatorService).handleTurn(turn);
      expect(outcome).toMatchObject({
        kind: 'moved',
        type: 'async_task_assign',
        attempts: 2,
        usage: { modelCalls: 2 },
      });
      expect(proposalsFor(turn.groupId)).toHaveLength(2);
    });

    it('drops a move for a turn that has moved on', async () => {
      const turn = newTurn();
      chat.groups.set(turn.groupId, { turn: 2, currentSpeaker: ids.researcher });
      chat.script.push(refuse('INVALID_STATE', 'Turn 1 is over: the group is at turn 2'));
      const outcome = await service.get(PlatformCommunicatorService).handleTurn(turn);
      expect(outcome).toMatchObject({ kind: 'dropped', reason: expect.stringContaining('the turn moved on') });
      expect(proposalsFor(turn.groupId)).toHaveLength(1);
    });

    it('writes the conclusion with one more model call when the turn must conclude', async () => {
      const tasks: GroupTaskV1[] = [
        {
          taskId: randomUUID(),
          assigneeId: ids.codeRunner,
          assigneeName: 'code-runner',
          assignerId: ids.codeRunner,
          mode: 'async',
          abstract: 'Multiply',
          state: 'completed',
          result: '42',
        },
      ];
      const turn = newTurn({ mustConclude: true, reason: 'The token budget is exhausted', tasks, turn: 7 });
      const outcome = await service.get(PlatformCommunicatorService).handleTurn(turn);
      expect(outcome).toMatchObject({ kind: 'moved', type: 'conclude', usage: { modelCalls: 2 } });
      const [proposal] = proposalsFor(turn.groupId);
      expect(proposal.content).toContain('_Concluded early: The token budget is exhausted._');
      expect(proposal.content).toContain('- **code-runner** — Multiply (completed): 42');
    });

    it('answers for a non-leader with a short acknowledgement to the leader', async () => {
      const turn = newTurn({ speakerId: ids.researcher, turn: 3 });
      await service.get(PlatformCommunicatorService).handleTurn(turn);
      expect(proposalsFor(turn.groupId)[0]).toMatchObject({
        type: 'discussion',
        nextSpeaker: ids.codeRunner,
        speakerId: ids.researcher,
      });
    });

    it('leaves agents that speak for themselves alone, and ignores turns past their deadline', async () => {
      const selfSpeaker = registry.add({ name: 'self-speaker', metadata: { communicator: 'self' } });
      const communicator = service.get(PlatformCommunicatorService);
      await expect(
        communicator.handleTurn(newTurn({ speakerId: selfSpeaker.id, leaderId: selfSpeaker.id })),
      ).resolves.toEqual({
        kind: 'skipped',
        reason: 'the agent speaks for itself',
      });
      await expect(
        communicator.handleTurn(newTurn({ deadline: new Date(Date.now() - 1000).toISOString() })),
      ).resolves.toMatchObject({
        kind: 'dropped',
      });
    });
  });
});
