import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Role,
  TaskState,
  type AgentCard,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import type { GoalV1 } from '@ioa/contracts';
import { adminAuthHeaders, expectEventually } from '@ioa/testing';
import type { AgentPlatform } from '../../../../test/support/agent-platform.js';
import { createGatewayApp } from '../gateway.app.js';
import { GOAL_ID_METADATA_KEY } from './goal-agent-executor.js';
import { startGatewayOverPlatform, type GatewayOverPlatform } from '../testing/gateway-over-platform.js';
import { authenticatedClientFactory, fetchWithHeaders } from './testing/a2a-credentials.js';
import { greeterMoves, startSelfSpeakingAgent, type SelfSpeakingAgent } from '../testing/self-speaking-agent.js';

const GOAL_DEADLINE_MS = 90_000;

function textOfMessage(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** A user message as the A2A SDK's types spell it. */
function userMessage(text: string, ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    taskId: ids.taskId ?? '',
    contextId: ids.contextId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function sendRequest(message: Message, options: { returnImmediately?: boolean; members?: string[] } = {}) {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      taskPushNotificationConfig: undefined,
      returnImmediately: options.returnImmediately ?? false,
    },
    metadata: options.members ? { members: options.members } : undefined,
  } satisfies SendMessageRequest;
}

function asTask(result: Message | Task): Task {
  expect('status' in result).toBe(true);
  return result as Task;
}

function goalIdOf(task: Task): string {
  return task.metadata?.[GOAL_ID_METADATA_KEY] as string;
}

/**
 * The gateway as an A2A agent, driven by `@a2a-js/sdk`'s own client (v1.0, and a v0.3 transport): each message
 * becomes a goal of the running platform (built-in agents on the deterministic offline model, and external agents
 * on a bare NATS connection), on a real broker and database.
 */
describe('the A2A facade over a running platform', () => {
  let stack: GatewayOverPlatform;
  let platform: AgentPlatform;
  let baseUrl: string;
  const agents: SelfSpeakingAgent[] = [];
  let client: Client;

  async function goal(goalId: string): Promise<GoalV1> {
    const response = await fetch(`${baseUrl}/v1/goals/${goalId}`, { headers: adminAuthHeaders() });
    return (await response.json()) as GoalV1;
  }

  beforeAll(async () => {
    stack = await startGatewayOverPlatform();
    ({ platform, baseUrl } = stack);
    agents.push(
      await startSelfSpeakingAgent(
        platform.client,
        'a2a-greeter',
        greeterMoves('Which language should the greeting be in?'),
      ),
      // Never moves: its goals work until canceled.
      await startSelfSpeakingAgent(platform.client, 'a2a-silent', () => undefined),
    );
    // Fetched after the registrations: the card (its skills cached for a few seconds) lists them.
    client = await authenticatedClientFactory(adminAuthHeaders()).createFromUrl(baseUrl);
  }, 180_000);

  afterAll(async () => {
    agents.forEach((agent) => agent.stop());
    await stack?.stop();
  }, 60_000);

  it('serves an agent card whose skills are the goal skill and the network’s online agents', async () => {
    const response = await fetch(`${baseUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(response.status).toBe(200);
    const card = (await response.json()) as AgentCard;
    expect(card.name).toBe('Internet of Agents');
    expect(card.capabilities?.streaming).toBe(true);
    const skills = card.skills.map((skill) => skill.id);
    expect(skills).toEqual(expect.arrayContaining(['goal', 'agent:code-runner', 'agent:writer', 'agent:a2a-greeter']));
    expect(card.supportedInterfaces).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
        expect.objectContaining({ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
      ]),
    );
    expect(client.protocolVersion).toBe('1.0');
  });

  let completedTask: Task;

  it(
    'SendMessage submits a goal and answers with the completed task, the conclusion as an artifact',
    async () => {
      const result = await client.sendMessage(
        sendRequest(userMessage('Run `console.log(6 * 7)` and write a short report.'), {
          members: ['code-runner', 'writer'],
        }),
      );
      completedTask = asTask(result);
      expect(completedTask.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const conclusion = completedTask.artifacts.find((artifact) => artifact.artifactId === 'conclusion');
      expect(textOfMessage({ parts: conclusion?.parts ?? [] } as Message)).toContain('42');
      const goalId = goalIdOf(completedTask);
      expect(await goal(goalId)).toMatchObject({ status: 'completed', team: expect.any(Array) });
      expect((await goal(goalId)).team.map((member) => member.name)).toEqual(['code-runner', 'writer']);
    },
    GOAL_DEADLINE_MS,
  );

  it(
    'SendStreamingMessage streams the goal as status and artifact updates, ending completed',
    async () => {
      const events: StreamResponse[] = [];
      for await (const event of client.sendMessageStream(
        sendRequest(userMessage('Run `console.log(6 * 7)` and write a short report.'), {
          members: ['code-runner', 'writer'],
        }),
      )) {
        events.push(event);
      }
      const kinds = events.map((event) => event.payload?.$case);
      expect(kinds[0]).toBe('task');
      expect(kinds).toContain('statusUpdate');
      expect(kinds).toContain('artifactUpdate');
      const statuses = events.flatMap((event) =>
        event.payload?.$case === 'statusUpdate' ? [event.payload.value.status] : [],
      );
      expect(statuses.at(-1)?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(statuses.slice(0, -1).every((status) => status?.state === TaskState.TASK_STATE_WORKING)).toBe(true);
      // The steps of the goal: the team, the members' messages, the tasks.
      const lines = statuses.map((status) => textOfMessage(status?.message));
      expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^Team: code-runner, writer$/)]));
      expect(lines.some((line) => line.startsWith('Task for code-runner is completed'))).toBe(true);
      const artifacts = events.flatMap((event) =>
        event.payload?.$case === 'artifactUpdate' ? [event.payload.value.artifact?.artifactId] : [],
      );
      expect(artifacts).toContain('conclusion');
      expect(artifacts.some((id) => id?.startsWith('task-'))).toBe(true);
    },
    GOAL_DEADLINE_MS,
  );

  it('GetTask and ListTasks read the tasks back from the PostgreSQL task store', async () => {
    const task = await client.getTask({ tenant: '', id: completedTask.id });
    expect(task).toMatchObject({ id: completedTask.id, contextId: completedTask.contextId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(goalIdOf(task)).toBe(goalIdOf(completedTask));
    const listed = await client.listTasks({
      tenant: '',
      contextId: completedTask.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((entry) => entry.id)).toEqual([completedTask.id]);
    const all = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(all.totalSize).toBeGreaterThanOrEqual(2);
  });

  let greetingTask: Task;

  it(
    'input-required is answered on the same task, which then completes',
    async () => {
      const asked = asTask(
        await client.sendMessage(
          sendRequest(userMessage('Write a greeting for the team'), { members: ['a2a-greeter'] }),
        ),
      );
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(textOfMessage(asked.status?.message)).toBe('Which language should the greeting be in?');
      expect((await goal(goalIdOf(asked))).status).toBe('input_required');

      greetingTask = asTask(
        await client.sendMessage(sendRequest(userMessage('German', { taskId: asked.id, contextId: asked.contextId }))),
      );
      expect(greetingTask.id).toBe(asked.id);
      expect(greetingTask.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOfMessage(greetingTask.status?.message)).toBe('Hallo, Team! (greeting in German)');
      expect(await goal(goalIdOf(asked))).toMatchObject({
        status: 'completed',
        conclusion: 'Hallo, Team! (greeting in German)',
      });
    },
    GOAL_DEADLINE_MS,
  );

  it(
    'a message on the same context follows the goal up: a new task, the same goal re-opened',
    async () => {
      const followUp = asTask(
        await client.sendMessage(sendRequest(userMessage('French, please', { contextId: greetingTask.contextId }))),
      );
      expect(followUp.id).not.toBe(greetingTask.id);
      expect(followUp.contextId).toBe(greetingTask.contextId);
      expect(goalIdOf(followUp)).toBe(goalIdOf(greetingTask));
      expect(followUp.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOfMessage(followUp.status?.message)).toBe('Hallo, Team! (greeting in French, please)');
      // The first task keeps its own outcome.
      const first = await client.getTask({ tenant: '', id: greetingTask.id });
      expect(textOfMessage(first.status?.message)).toBe('Hallo, Team! (greeting in German)');
    },
    GOAL_DEADLINE_MS,
  );

  it(
    'SubscribeToTask follows a running task, and CancelTask cancels it and its goal',
    async () => {
      const started = asTask(
        await client.sendMessage(
          sendRequest(userMessage('Listen to the silence'), { members: ['a2a-silent'], returnImmediately: true }),
        ),
      );
      const goalId = goalIdOf(started);
      await expectEventually(async () => (await goal(goalId)).status === 'working', {
        timeoutMs: GOAL_DEADLINE_MS,
        message: 'the goal is at work',
      });
      const seen: StreamResponse[] = [];
      const subscribed = (async () => {
        for await (const event of client.resubscribeTask({ tenant: '', id: started.id })) seen.push(event);
      })();
      await expectEventually(() => seen.length > 0, { message: 'the subscription delivers the task' });

      const canceled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await subscribed;
      const last = seen.at(-1)?.payload;
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(await goal(goalId)).toMatchObject({ status: 'canceled', statusReason: 'Canceled by the A2A client' });
      // A finished task cannot be canceled again.
      await expect(client.cancelTask({ tenant: '', id: completedTask.id, metadata: undefined })).rejects.toThrow(
        /not cancelable/i,
      );
    },
    GOAL_DEADLINE_MS,
  );

  it(
    'answers bad input with A2A errors and failed tasks, never a crash',
    async () => {
      await expect(client.getTask({ tenant: '', id: randomUUID() })).rejects.toThrow(/not found/i);
      const empty = asTask(await client.sendMessage(sendRequest(userMessage('   '))));
      expect(empty.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(textOfMessage(empty.status?.message)).toMatch(/no text/);
      const unknownMember = asTask(
        await client.sendMessage(sendRequest(userMessage('Do something'), { members: ['nobody-of-that-name'] })),
      );
      expect(unknownMember.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      const garbage = await fetch(`${baseUrl}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...adminAuthHeaders() },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: 42 } }),
      });
      expect(garbage.status).toBeLessThan(500);
      expect(((await garbage.json()) as { error?: { code: number } }).error?.code).toBeLessThan(0);
    },
    GOAL_DEADLINE_MS,
  );

  it(
    'serves a v0.3 client through the same endpoint',
    async () => {
      const legacy = new Client(
        new LegacyJsonRpcTransport({
          endpoint: `${baseUrl}/a2a/jsonrpc`,
          fetchImpl: fetchWithHeaders(adminAuthHeaders()),
        }),
        await client.getAgentCard(),
      );
      const task = asTask(
        await legacy.sendMessage(
          sendRequest(userMessage('Write a greeting for the team'), { members: ['a2a-greeter'] }),
        ),
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const answered = asTask(
        await legacy.sendMessage(sendRequest(userMessage('Dutch', { taskId: task.id, contextId: task.contextId }))),
      );
      expect(textOfMessage(answered.status?.message)).toBe('Hallo, Team! (greeting in Dutch)');
      expect((await legacy.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    },
    GOAL_DEADLINE_MS,
  );
  it(
    'serves the HTTP+JSON binding too',
    async () => {
      const rest = await authenticatedClientFactory(adminAuthHeaders(), ['HTTP+JSON']).createFromUrl(baseUrl);
      expect(rest.transport.protocolName).toBe('HTTP+JSON');
      const task = asTask(
        await rest.sendMessage(sendRequest(userMessage('Write a greeting for the team'), { members: ['a2a-greeter'] })),
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect((await rest.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
      const canceled = await rest.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await goal(goalIdOf(task))).status).toBe('canceled');
    },
    GOAL_DEADLINE_MS,
  );

  it(
    'brings a task whose gateway went away up to date from its goal',
    async () => {
      // A second gateway replica takes the task, then goes away while the goal is at work.
      const replica = await createGatewayApp({ logger: false });
      await replica.listen(0, '127.0.0.1');
      const replicaClient = await authenticatedClientFactory(adminAuthHeaders()).createFromUrl(
        (await replica.getUrl()).replace('[::1]', '127.0.0.1'),
      );
      const started = asTask(
        await replicaClient.sendMessage(
          sendRequest(userMessage('Listen to the silence again'), { members: ['a2a-silent'], returnImmediately: true }),
        ),
      );
      const goalId = goalIdOf(started);
      await expectEventually(async () => (await goal(goalId)).status === 'working', {
        timeoutMs: GOAL_DEADLINE_MS,
        message: 'the goal is at work',
      });
      await replica.close();
      const cancel = await fetch(`${baseUrl}/v1/goals/${goalId}/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
        body: JSON.stringify({ reason: 'Stopped over REST' }),
      });
      expect(cancel.status).toBeLessThan(300);

      // Nobody followed the goal to its end; reading the task catches it up.
      const task = await client.getTask({ tenant: '', id: started.id });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(textOfMessage(task.status?.message)).toBe('Stopped over REST');
      expect(goalIdOf(task)).toBe(goalId);
    },
    GOAL_DEADLINE_MS,
  );
});
