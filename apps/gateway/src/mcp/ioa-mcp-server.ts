import { McpServer, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { describeError, summarizeGoal, type GoalProgress, type GoalToolsService } from './goal-tools.service.js';

/** The MCP server's name and version, as `initialize` / `server/discover` announce them. */
export const MCP_SERVER_INFO = { name: 'internet-of-agents', version: '0.1.0' };

// The bounds are the contract's (SubmitGoalV1Request, SearchAgentsV1Request…): a bad input is refused here, as a
// tool error naming the field, before any request reaches the platform.
const goalId = z.uuid().describe('The goal id, as submit_goal returned it.');
const waitFields = {
  wait: z
    .boolean()
    .default(false)
    .describe('Wait for the goal to end (or to ask you something), with progress notifications.'),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(600)
    .default(120)
    .describe('How long to wait at most; the goal goes on after it.'),
};

function json(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: { ...value } };
}

function toolError(error: unknown): CallToolResult {
  return { content: [{ type: 'text', text: describeError(error) }], isError: true };
}

/** Progress notifications for the request being served, when its client asked for them (a progress token). */
function progressOf(context: ServerContext): GoalProgress {
  const token = context.mcpReq._meta?.progressToken;
  return async (step, message) => {
    if (token === undefined) return;
    await context.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress: step, message },
    });
  };
}

/**
 * One MCP server instance with the platform's tools; the stateless endpoint builds one per request. Each tool is a
 * thin adapter: validate (zod), call `GoalToolsService`, shape the answer; any failure is a tool error the model
 * can read (`isError`), never a protocol failure.
 */
export function createIoaMcpServer(tools: GoalToolsService): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    instructions:
      'The Internet of Agents: submit a goal in plain language and a team of agents forms to reach it. ' +
      'Use search_agents to see who could help, submit_goal (wait: true to get the conclusion), and ' +
      'post_goal_message to answer a question the team asks (status input_required).',
  });

  server.registerTool(
    'submit_goal',
    {
      title: 'Submit a goal',
      description:
        'Submit a goal to the network: a team of agents forms (or the named members), discusses, hands out tasks ' +
        'and concludes. With wait, answers when the goal has ended or asks you something.',
      inputSchema: z.object({
        goal: z.string().trim().min(1).max(8000).describe('What to achieve, in plain language.'),
        members: z
          .array(z.string().min(1).max(64))
          .min(1)
          .max(8)
          .optional()
          .describe('Agent names or ids to work on it (the first leads); omitted, the team forms on its own.'),
        ...waitFields,
      }),
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    async ({ goal, members, wait, timeoutSeconds }, context) => {
      try {
        const submitted = await tools.submit(goal, members);
        if (!wait) return json(summarizeGoal(submitted));
        const progress = progressOf(context);
        return json(await tools.waitFor(submitted.id, 0, timeoutSeconds * 1000, progress, context.mcpReq.signal));
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'get_goal',
    {
      title: 'Get a goal',
      description: "A goal's status, team, tasks and conclusion.",
      inputSchema: z.object({ goalId }),
      annotations: { readOnlyHint: true },
    },
    async ({ goalId: id }) => {
      try {
        return json(summarizeGoal(await tools.get(id)));
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'post_goal_message',
    {
      title: 'Talk to the team of a goal',
      description:
        "Join a goal's conversation: answer the question the team asked (status input_required), or follow up " +
        'on a completed goal, which re-opens it.',
      inputSchema: z.object({ goalId, content: z.string().trim().min(1).max(20000), ...waitFields }),
      annotations: { destructiveHint: false },
    },
    async ({ goalId: id, content, wait, timeoutSeconds }, context) => {
      try {
        const { goal, afterSeq } = await tools.postMessage(id, content);
        if (!wait) return json(summarizeGoal(goal));
        const progress = progressOf(context);
        return json(await tools.waitFor(id, afterSeq, timeoutSeconds * 1000, progress, context.mcpReq.signal));
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'cancel_goal',
    {
      title: 'Cancel a goal',
      description: 'Cancel a goal: its team stops and its open tasks are canceled.',
      inputSchema: z.object({ goalId, reason: z.string().trim().min(1).max(2000).optional() }),
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    async ({ goalId: id, reason }) => {
      try {
        return json(summarizeGoal(await tools.cancel(id, reason)));
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'search_agents',
    {
      title: 'Search agents',
      description: 'Find the agents whose cards best match a need, best first, with a similarity score.',
      inputSchema: z.object({
        query: z.string().trim().min(1).max(1000).describe('The capability you need, in plain language.'),
        topK: z.number().int().min(1).max(100).default(5),
        onlineOnly: z.boolean().default(true),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ query, topK, onlineOnly }) => {
      try {
        return json({ agents: await tools.searchAgents(query, topK, onlineOnly) });
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description: 'The registered agents, newest first, optionally only those online (or offline).',
      inputSchema: z.object({
        online: z.boolean().optional(),
        limit: z.number().int().min(1).max(500).default(50),
        offset: z.number().int().min(0).default(0),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ online, limit, offset }) => {
      try {
        return json(await tools.listAgents(online, limit, offset));
      } catch (error) {
        return toolError(error);
      }
    },
  );

  return server;
}
