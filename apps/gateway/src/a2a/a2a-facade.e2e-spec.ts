import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  Role,
  TaskState,
  type AgentCard,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import {
  HeartbeatAgentV1,
  ListAgentsV1,
  ProposeMoveV1,
  RegisterAgentV1,
  TurnGrantedV1,
  USER_SPEAKER,
  type GoalV1,
  type ListAgentsV1Response,
  type RegisterAgentV1Response,
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
// The facade is tested over the real platform, as the goals API is: registry, chat, scheduler and agent-host.
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { AgentHostModule } from '../../../agent-host/src/agent-host.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { ChatModule } from '../../../chat/src/chat.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { RegistryModule } from '../../../registry/src/registry.module.js';
// eslint-disable-next-line ioa/module-boundaries -- test booting a peer service (see above)
import { SchedulerModule } from '../../../scheduler/src/scheduler.module.js';
import { createGatewayApp } from '../gateway.app.js';
import { GOAL_ID_METADATA_KEY } from './goal-agent-executor.js';

const GOAL_DEADLINE_MS = 90_000;
/** Well within the registry's heartbeat TTL. */
const HEARTBEAT_MS = 2_000;

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
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let gateway: INestApplication;
  let baseUrl: string;
  let external: NatsConnection;
  const subscriptions: Subscription[] = [];
  const heartbeats: NodeJS.Timeout[] = [];
  let client: Client;

  async function goal(goalId: string): Promise<GoalV1> {
    const response = await fetch(`${baseUrl}/v1/goals/${goalId}`);
    return (await response.json()) as GoalV1;
  }

  /** An agent on a bare NATS connection that speaks for itself, with `onTurn` choosing its moves. */
  async function registerSelfSpeakingAgent(
    name: string,
    onTurn: (turn: TurnGrantedV1Event) => Record<string, unknown> | undefined,
  ): Promise<string> {
    const registered = await rawRequest(external, RegisterAgentV1.subject, {
      name,
      description: `Test agent ${name}.`,
      skills: [{ id: 'talk', name: 'Talk', description: 'Talks in the group.' }],
      owner: 'a2a-facade-test',
      endpoint: { kind: 'nats' },
      metadata: { communicator: 'self' },
    });
    expect(registered.ok).toBe(true);
    const agentId = (registered.data as RegisterAgentV1Response).agent.id;
    // Stays online like any agent: a silent card would go offline, and goals naming it would fail.
    heartbeats.push(
      setInterval(() => void rawRequest(external, HeartbeatAgentV1.subject, { id: agentId }), HEARTBEAT_MS),
    );
    subscriptions.push(
      external.subscribe(TurnGrantedV1.subject, {
        callback: (_error, message) => {
          const turn = message.json<TurnGrantedV1Event>();
          if (turn.speakerId !== agentId) return;
          const move = onTurn(turn);
          if (!move) return;
          void rawRequest(external, ProposeMoveV1.subject, {
            groupId: turn.groupId,
            speakerId: agentId,
            turn: turn.turn,
            ...move,
          });
        },
      }),
    );
    await external.flush();
    return agentId;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ AGENT_HOST_HEARTBEAT_MS: '1000' });
    for (const [module, name] of [
      [RegistryModule, 'registry'],
      [ChatModule, 'chat'],
      [SchedulerModule, 'scheduler'],
      [AgentHostModule, 'agent-host'],
    ] as const) {
      services.push(await createService(module, { name, logger: false }));
    }
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    external = await connectRaw(infrastructure.natsUrl);
    await expectEventually(
      async () => {
        const reply = await rawRequest(external, ListAgentsV1.subject, { owner: 'ioa-builtin', status: 'online' });
        return (reply.data as ListAgentsV1Response).items.length === 3;
      },
      { timeoutMs: 120_000, message: 'the built-in agents come online' },
    );
    // A greeter that asks the person which language first, then concludes with the latest answer.
    await registerSelfSpeakingAgent('a2a-greeter', (turn) => {
      const answer = [...turn.recentMessages].reverse().find((entry) => entry.type === 'user');
      const asked = turn.recentMessages.some((entry) => entry.nextSpeaker === USER_SPEAKER);
      return answer && asked
        ? { type: 'conclude', content: `Hallo, Team! (greeting in ${answer.content})` }
        : { type: 'discussion', content: 'Which language should the greeting be in?', nextSpeaker: USER_SPEAKER };
    });
    // An agent that never moves: its goals work until canceled.
    await registerSelfSpeakingAgent('a2a-silent', () => undefined);
    // Fetched after the registrations: the card (its skills cached for a few seconds) lists them.
    client = await new ClientFactory().createFromUrl(baseUrl);
  }, 180_000);

  afterAll(async () => {
    subscriptions.forEach((subscription) => subscription.unsubscribe());
    heartbeats.forEach((heartbeat) => clearInterval(heartbeat));
    await external?.close();
    await gateway?.close();
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
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
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
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
        new LegacyJsonRpcTransport({ endpoint: `${baseUrl}/a2a/jsonrpc` }),
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
      const rest = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
      ).createFromUrl(baseUrl);
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
      const replicaClient = await new ClientFactory().createFromUrl(
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
        headers: { 'content-type': 'application/json' },
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
