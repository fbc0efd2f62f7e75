import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { AssignTaskV1, subjectFor, type ReportTaskV1Request, type TurnGrantedV1Event } from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startOpenAiFake,
  startTestInfrastructure,
  type OpenAiFake,
  type TestInfrastructure,
} from '@ioa/testing';
import { AgentHostModule } from '../agent-host.module.js';
import {
  refuse,
  startFakeChat,
  startFakeRegistry,
  startFakeScheduler,
  type FakeChat,
  type FakeRegistry,
  type FakeScheduler,
} from '../testing/platform-fakes.js';
import { PlatformCommunicatorService } from './platform-communicator.service.js';

/** agent-host with the real `openai` client against a local OpenAI-compatible endpoint that answers from a script. */
describe('agent-host with an OpenAI-compatible model (scripted, including malformed answers)', () => {
  let infrastructure: TestInfrastructure;
  let service: INestMicroservice;
  let external: NatsConnection;
  let fake: OpenAiFake;
  let registry: FakeRegistry;
  let scheduler: FakeScheduler;
  let chat: FakeChat;
  let communicator: PlatformCommunicatorService;
  const ids = { codeRunner: '', writer: '' };

  // Booting real infrastructure and services is slow on a loaded machine (hence the hook timeout); tests are not.
  beforeAll(async () => {
    fake = await startOpenAiFake();
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      OPENAI_BASE_URL: fake.baseUrl,
      LLM_MODEL: 'scripted',
      LLM_TRANSPORT_RETRIES: '0',
      AGENT_HOST_AGENTS: 'code-runner,writer',
    });
    external = await connectRaw(infrastructure.natsUrl);
    registry = startFakeRegistry(external);
    scheduler = startFakeScheduler(external);
    chat = startFakeChat(external);
    await external.flush();
    service = await createService(AgentHostModule, { name: 'agent-host', logger: false });
    communicator = service.get(PlatformCommunicatorService);
    await expectEventually(() => registry.cards.size === 2);
    ids.codeRunner = registry.idOf('code-runner') as string;
    ids.writer = registry.idOf('writer') as string;
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    await external?.close();
    await infrastructure?.stop();
    await fake?.stop();
  });

  function newTurn(): TurnGrantedV1Event {
    const groupId = randomUUID();
    chat.groups.set(groupId, { turn: 2, currentSpeaker: ids.codeRunner });
    return {
      groupId,
      goalId: randomUUID(),
      goal: 'Compute 6 * 7 and report it',
      turn: 2,
      maxTurns: 12,
      speakerId: ids.codeRunner,
      leaderId: ids.codeRunner,
      mustConclude: false,
      reason: 'Named by the previous speaker',
      deadline: new Date(Date.now() + 60_000).toISOString(),
      members: [
        { agentId: ids.codeRunner, name: 'code-runner' },
        { agentId: ids.writer, name: 'writer' },
      ],
      recentMessages: [],
      tasks: [],
    };
  }

  const proposalsFor = (groupId: string) => chat.proposals.filter((proposal) => proposal.groupId === groupId);
  /** The structured input the model received in a request (the last user message carrying JSON). */
  const inputOf = (index: number) =>
    JSON.parse(String(fake.requests[index].messages[1].content).replace(/^Input \(JSON\):\n/, '')) as Record<
      string,
      unknown
    >;

  it('proposes the move the model wrote, after retrying a non-JSON answer, with the usage of both calls', async () => {
    const turn = newTurn();
    fake.requests.length = 0;
    fake.enqueue(
      { content: 'Let me think about it…', usage: { promptTokens: 300, completionTokens: 7 } },
      {
        json: { type: 'discussion', content: 'Writer, can you draft the report?', nextSpeaker: ids.writer },
        usage: { promptTokens: 340, completionTokens: 20 },
      },
    );
    const outcome = await communicator.handleTurn(turn);
    expect(outcome).toEqual({
      kind: 'moved',
      type: 'discussion',
      attempts: 1,
      usage: { promptTokens: 640, completionTokens: 27, modelCalls: 2 },
    });
    expect(proposalsFor(turn.groupId)).toEqual([
      expect.objectContaining({
        type: 'discussion',
        content: 'Writer, can you draft the report?',
        nextSpeaker: ids.writer,
        turn: 2,
      }),
    ]);
    expect(inputOf(0)).toMatchObject({
      goal: turn.goal,
      self: { name: 'code-runner' },
      members: [{ name: 'code-runner' }, { name: 'writer' }],
    });
  });

  it('feeds the chat’s rejection back to the model and proposes its corrected move', async () => {
    const turn = newTurn();
    // The ledger moved on since the turn was granted (a task finished): the retry must see it as it is now.
    const finished = {
      taskId: randomUUID(),
      assigneeId: ids.writer,
      assigneeName: 'writer',
      assignerId: ids.codeRunner,
      mode: 'sync' as const,
      abstract: 'Write it up',
      state: 'completed' as const,
      result: 'Written',
    };
    chat.groups.set(turn.groupId, { turn: 2, currentSpeaker: ids.codeRunner, tasks: [finished] });
    fake.requests.length = 0;
    chat.script.push(refuse('INVALID_STATE', 'conclude is not allowed while sync tasks are open'));
    fake.enqueue(
      { json: { type: 'conclude', content: 'Done' } },
      { json: { conclusion: '42' } }, // the conclusion purpose's call
      { json: { type: 'pause', content: 'Waiting for the task', awaitTaskIds: [randomUUID()] } },
    );
    const outcome = await communicator.handleTurn(turn);
    expect(outcome).toMatchObject({ kind: 'moved', type: 'pause', attempts: 2, usage: { modelCalls: 3 } });
    expect(proposalsFor(turn.groupId).map((proposal) => proposal.type)).toEqual(['conclude', 'pause']);
    expect(proposalsFor(turn.groupId)[0].content).toBe('42');
    expect(fake.requests[1].response_format?.json_schema?.name).toBe('conclusion');
    expect(inputOf(2).rejection).toBe(
      'Your conclude move was rejected (INVALID_STATE): conclude is not allowed while sync tasks are open.',
    );
    expect(inputOf(0).tasks).toEqual([]);
    expect(inputOf(2).tasks).toEqual([finished]);
  });

  it('gives the turn up when the model never produces a valid move', async () => {
    const turn = newTurn();
    fake.enqueue({ content: 'no' }, { json: { type: 'dance', content: 'x' } }, { json: { content: 'no type' } });
    await expect(communicator.handleTurn(turn)).resolves.toMatchObject({
      kind: 'dropped',
      reason: expect.stringContaining('no valid answer for turn.move in 3 attempts'),
    });
    expect(proposalsFor(turn.groupId)).toEqual([]);
    expect(communicator.usage.forGoal(turn.goalId)).toEqual({ promptTokens: 150, completionTokens: 30, modelCalls: 3 });
  });

  it('the writer composes its report through the model and reports the API’s token usage', async () => {
    fake.enqueue({ json: { report: '# Report\n\n- 42' }, usage: { promptTokens: 210, completionTokens: 12 } });
    const assignment = {
      taskId: randomUUID(),
      goalId: randomUUID(),
      groupId: randomUUID(),
      agentId: ids.writer,
      brief: {
        abstract: 'Report',
        inputs: '### code-runner: Multiply\n42',
        description: 'Compose a report',
        completionCriteria: 'A report',
      },
      deadline: new Date(Date.now() + 60_000).toISOString(),
      depth: 0,
      maxDepth: 0,
      attempt: 1,
    };
    expect(await rawRequest(external, subjectFor(AssignTaskV1, ids.writer), assignment)).toEqual({
      ok: true,
      data: { accepted: true },
    });
    const report = (await expectEventually(() =>
      scheduler.reportsOf(assignment.taskId).find((entry) => entry.state !== 'working'),
    )) as ReportTaskV1Request;
    expect(report).toMatchObject({
      state: 'completed',
      content: '# Report\n\n- 42',
      usage: { promptTokens: 210, completionTokens: 12, modelCalls: 1 },
    });
  });
});
