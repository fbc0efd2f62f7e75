import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { adminAuthHeaders, expectEventually } from '@ioa/testing';
import type { AgentPlatform } from '../../../../test/support/agent-platform.js';
import { startGatewayOverPlatform, type GatewayOverPlatform } from '../testing/gateway-over-platform.js';
import { greeterMoves, startSelfSpeakingAgent, type SelfSpeakingAgent } from '../testing/self-speaking-agent.js';
import type { AgentSummary, GoalSummary } from './goal-tools.service.js';

const GOAL_DEADLINE_MS = 90_000;

interface ToolAnswer<T> {
  isError?: boolean;
  text: string;
  data: T;
}

/**
 * The gateway's MCP endpoint driven by the MCP SDK's own client (Streamable HTTP), with the whole platform behind
 * it: registry, discovery, chat, scheduler and the built-in agents on the offline model, on a real broker and
 * database.
 */
describe('the MCP endpoint over a running platform', () => {
  let stack: GatewayOverPlatform;
  let platform: AgentPlatform;
  let baseUrl: string;
  let client: Client;
  const agents: SelfSpeakingAgent[] = [];

  async function call<T>(name: string, args: Record<string, unknown>, onprogress?: (message: string) => void) {
    const result = await client.callTool(
      { name, arguments: args },
      {
        timeout: GOAL_DEADLINE_MS,
        ...(onprogress ? { onprogress: (progress) => onprogress(progress.message ?? '') } : {}),
      },
    );
    const content = result.content as Array<{ type: string; text?: string }>;
    const text = content.map((block) => block.text ?? '').join('');
    return {
      isError: result.isError,
      text,
      data: (result.isError ? undefined : JSON.parse(text)) as T,
    } satisfies ToolAnswer<T>;
  }

  beforeAll(async () => {
    stack = await startGatewayOverPlatform();
    ({ platform, baseUrl } = stack);
    client = new Client({ name: 'mcp-endpoint-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: adminAuthHeaders() } }),
    );
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    agents.forEach((agent) => agent.stop());
    await stack?.stop();
  }, 60_000);

  it('lists the platform’s tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'cancel_goal',
      'get_goal',
      'list_agents',
      'post_goal_message',
      'search_agents',
      'submit_goal',
    ]);
    const submit = tools.find((tool) => tool.name === 'submit_goal');
    expect(submit?.inputSchema).toMatchObject({ type: 'object', required: ['goal'] });
  });

  it('list_agents and search_agents find the built-in agents', async () => {
    const listed = await call<{ total: number; agents: AgentSummary[] }>('list_agents', { online: true });
    expect(listed.data.agents.map((agent) => agent.name)).toEqual(
      expect.arrayContaining(['code-runner', 'doc-researcher', 'writer']),
    );
    // Discovery indexes the cards after registration: wait until it answers with the code runner.
    const found = await expectEventually(
      async () => {
        const answer = await call<{ agents: AgentSummary[] }>('search_agents', { query: 'run JavaScript code' });
        if (answer.data.agents[0]?.name !== 'code-runner') throw new Error(`ranked: ${answer.text}`);
        return answer;
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'discovery ranks the code runner first' },
    );
    expect(found.data.agents[0]).toMatchObject({ name: 'code-runner', status: 'online', endpoint: 'nats' });
    expect(found.data.agents[0].score).toBeGreaterThan(0);
  });

  let goalId: string;

  it(
    'submit_goal waits for the conclusion, with a progress notification per step',
    async () => {
      const progress: string[] = [];
      const answer = await call<GoalSummary>(
        'submit_goal',
        { goal: 'Run `console.log(6 * 7)` and write a short report.', members: ['code-runner', 'writer'], wait: true },
        (message) => progress.push(message),
      );
      expect(answer.isError).toBeFalsy();
      expect(answer.data).toMatchObject({ status: 'completed', team: ['code-runner', 'writer'] });
      expect(answer.data.conclusion).toContain('42');
      expect(progress).toEqual(expect.arrayContaining(['Team: code-runner, writer']));
      expect(progress.length).toBeGreaterThan(3);
      goalId = answer.data.goalId;
    },
    GOAL_DEADLINE_MS,
  );

  it('get_goal reads it back', async () => {
    const answer = await call<GoalSummary>('get_goal', { goalId });
    expect(answer.data).toMatchObject({ goalId, status: 'completed' });
    expect(answer.data.tasks.every((task) => task.state === 'completed')).toBe(true);
  });

  it(
    'a question of the team comes back as input_required, and post_goal_message answers it',
    async () => {
      // An agent on a bare NATS connection that asks the person first, then concludes with the answer.
      agents.push(
        await startSelfSpeakingAgent(platform.client, 'mcp-greeter', greeterMoves('Which language should it be in?')),
      );

      const asked = await call<GoalSummary>('submit_goal', {
        goal: 'Write a greeting for the team',
        members: ['mcp-greeter'],
        wait: true,
      });
      expect(asked.data).toMatchObject({ status: 'input_required', question: 'Which language should it be in?' });
      const progress: string[] = [];
      const answered = await call<GoalSummary>(
        'post_goal_message',
        { goalId: asked.data.goalId, content: 'German', wait: true },
        (message) => progress.push(message),
      );
      expect(answered.data).toMatchObject({ status: 'completed', conclusion: 'Hallo, Team! (greeting in German)' });
      // The answer puts the team back to work; the last step is the conclusion (the concluding message may come
      // before or after the status on the log, as chat's and the scheduler's consumers go).
      expect(progress[0]).toBe('The team is at work');
      expect(progress.at(-1)).toBe('Hallo, Team! (greeting in German)');
    },
    GOAL_DEADLINE_MS,
  );

  it('cancel_goal cancels a goal at work, and says why it cannot cancel an ended one', async () => {
    agents.push(await startSelfSpeakingAgent(platform.client, 'mcp-silent', () => undefined));
    const submitted = await call<GoalSummary>('submit_goal', { goal: 'Wait in silence', members: ['mcp-silent'] });
    expect(submitted.data.status).toBe('submitted');
    const canceled = await call<GoalSummary>('cancel_goal', { goalId: submitted.data.goalId, reason: 'Enough' });
    expect(canceled.data).toMatchObject({ status: 'canceled', statusReason: 'Enough' });

    const ended = await call('cancel_goal', { goalId });
    expect(ended.isError).toBe(true);
    expect(ended.text).toMatch(/^INVALID_STATE: .*already completed/);
  });

  it(
    'answers bad input with a tool error naming the problem, never a crash',
    async () => {
      const notUuid = await call('get_goal', { goalId: 'not-a-uuid' });
      expect(notUuid.isError).toBe(true);
      expect(notUuid.text).toMatch(/goalId/);
      const blank = await call('submit_goal', { goal: '   ' });
      expect(blank.isError).toBe(true);
      const unknown = await call('get_goal', { goalId: '6f1c3b5e-8a3d-4c7e-9b2a-1d4e5f6a7b8c' });
      expect(unknown).toMatchObject({ isError: true, text: expect.stringMatching(/^NOT_FOUND: /) });
      const noSuchMember = await call('submit_goal', { goal: 'Do it', members: ['nobody-of-that-name'], wait: true });
      expect(noSuchMember.isError).toBeFalsy();
      expect(noSuchMember.data).toMatchObject({ status: 'failed' });
    },
    GOAL_DEADLINE_MS,
  );
});
