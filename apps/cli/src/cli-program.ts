import { randomUUID } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import { HEADER_IDEMPOTENCY_KEY, type AgentCardV1, type GoalV1, type ListGoalsV1Response } from '@ioa/contracts';
import { getJson, oneLine, sendJson, shortId, usageLine } from '@ioa/gateway-client';
import { cliOutput, type CliOutput } from './cli-output.js';
import { resolveSettings, type CliEnvironment, type CliSettings } from './cli-settings.js';
import { followGoal } from './follow-goal.js';

/** Exit codes: 0 the goal completed (or the command did what it says), 1 it did not, 2 the command was wrong. */
export const EXIT_OK = 0;
export const EXIT_NOT_COMPLETED = 1;
export const EXIT_USAGE = 2;

/** The process around the program: what it reads and how it ends (a test can give its own). */
export interface CliProcess {
  environment: CliEnvironment & { NO_COLOR?: string };
  workingDirectory: string;
  isTerminal: boolean;
  columns: number | undefined;
  setExitCode(code: number): void;
}

interface GlobalOptions {
  gateway?: string;
  apiKey?: string;
  json?: boolean;
}

/** An agent as `GET /v1/agents` lists it (a search adds its score). */
type ListedAgent = AgentCardV1 & { score?: number };

function positiveInteger(name: string) {
  return (value: string): number => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(value);
  };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The `ioa` command line: every command is a call to the gateway's REST API. */
export function createProgram(io: CliProcess): Command {
  const program = new Command('ioa')
    .description('Talk to an IoA network through its gateway: submit and follow goals, answer the team, find agents.')
    .option('--gateway <url>', 'the gateway (default: IOA_GATEWAY_URL, else the local stack http://127.0.0.1:8080)')
    .option('--api-key <key>', 'API key (default: IOA_API_KEY, else <IOA_DATA_DIR or .data>/admin-api-key)')
    .option('--json', 'print JSON for scripts instead of lines for people')
    .showHelpAfterError()
    .exitOverride();

  const context = (command: Command): { settings: CliSettings; out: CliOutput } => {
    const options = command.optsWithGlobals<GlobalOptions>();
    const out = cliOutput({
      json: options.json ?? false,
      colour: io.isTerminal && !io.environment.NO_COLOR,
      columns: io.isTerminal ? io.columns : undefined,
    });
    return { settings: resolveSettings(options, io.environment, io.workingDirectory), out };
  };

  /** Follows a goal to its end; the exit code says whether it completed. */
  const followToEnd = async (goal: GoalV1, settings: CliSettings, out: CliOutput) => {
    const ended = await followGoal(goal.id, settings, out, { startedAt: Date.parse(goal.createdAt) });
    io.setExitCode(ended.status === 'completed' ? EXIT_OK : EXIT_NOT_COMPLETED);
  };

  program
    .command('goal')
    .description('submit a goal; with --follow, print the team, messages and tasks live, then the conclusion')
    .argument('<text>', 'what the team should achieve')
    .option(
      '--member <name>',
      'an agent to put on the team (repeat; the first leads); none: the team forms itself',
      collect,
    )
    .addOption(
      new Option('--max-turns <n>', 'turn limit of the conversation').argParser(positiveInteger('--max-turns')),
    )
    .addOption(new Option('--max-depth <n>', 'how deep sub-teams may nest').argParser((value) => Number(value)))
    .addOption(new Option('--budget-tokens <n>', 'token budget').argParser(positiveInteger('--budget-tokens')))
    .option('--follow', 'follow the goal until it ends (exit code 0 only if it completed)')
    .action(async (text: string, options: Record<string, unknown>, command: Command) => {
      const { settings, out } = context(command);
      const body = {
        goal: text,
        ...(options.member ? { members: options.member } : {}),
        ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
        ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
        ...(options.budgetTokens ? { budget: { tokens: options.budgetTokens } } : {}),
      };
      const submitted = await sendJson<{ id: string; status: string }>('POST', `${settings.gatewayUrl}/v1/goals`, {
        apiKey: settings.apiKey,
        body,
        // A retried submit never creates a second goal.
        headers: { [HEADER_IDEMPOTENCY_KEY]: randomUUID() },
      });
      if (!options.follow) {
        if (out.json) out.printJson(submitted);
        else out.line(`goal ${submitted.id} ${submitted.status}; follow it with: ioa watch ${submitted.id}`);
        return;
      }
      if (!out.json) out.line(out.paint.dim(`goal ${submitted.id} submitted; following it (Ctrl-C stops watching)`));
      const goal = await getJson<GoalV1>(settings.apiKey, `${settings.gatewayUrl}/v1/goals/${submitted.id}`);
      await followToEnd(goal, settings, out);
    });

  program
    .command('watch')
    .description("follow a goal's team, messages and tasks until it ends (exit code 0 only if it completed)")
    .argument('<id>', 'the goal id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { settings, out } = context(command);
      const goal = await getJson<GoalV1>(settings.apiKey, `${settings.gatewayUrl}/v1/goals/${encodeURIComponent(id)}`);
      if (!out.json) out.line(out.paint.dim(`goal ${goal.id}: ${oneLine(goal.goal, out.excerpt)}`));
      await followToEnd(goal, settings, out);
    });

  program
    .command('goals')
    .description('list goals, newest first')
    .option('--status <status>', 'only goals in this status (repeat for several)', collect)
    .addOption(new Option('--limit <n>', 'how many').argParser(positiveInteger('--limit')).default(20))
    .option('--cursor <cursor>', 'the next page (printed at the end of a page)')
    .action(async (options: { status?: string[]; limit: number; cursor?: string }, command: Command) => {
      const { settings, out } = context(command);
      const query = new URLSearchParams({ limit: String(options.limit), topLevelOnly: 'true' });
      for (const status of options.status ?? []) query.append('status', status);
      if (options.cursor) query.set('cursor', options.cursor);
      const page = await getJson<ListGoalsV1Response>(
        settings.apiKey,
        `${settings.gatewayUrl}/v1/goals?${query.toString()}`,
      );
      if (out.json) return out.printJson(page);
      if (page.items.length === 0) out.line('no goals');
      for (const goal of page.items) {
        const team = goal.team.map((member) => member.name).join(', ') || '-';
        out.line(
          `${out.paint.bold(goal.id)}  ${goal.status.padEnd(14)} ${goal.createdAt.slice(0, 19).replace('T', ' ')}  ` +
            `${oneLine(goal.goal, out.excerpt)}`,
        );
        out.line(out.paint.dim(`  team: ${team}; ${usageLine(goal.usage)}`));
      }
      if (page.nextCursor) out.line(out.paint.dim(`more: ioa goals --cursor ${page.nextCursor}`));
    });

  program
    .command('answer')
    .description("post a message to a goal's conversation: an answer to the team's question, or a follow-up")
    .argument('<id>', 'the goal id')
    .argument('<text>', 'what to say')
    .action(async (id: string, text: string, _options: unknown, command: Command) => {
      const { settings, out } = context(command);
      const goal = await sendJson<GoalV1>(
        'POST',
        `${settings.gatewayUrl}/v1/goals/${encodeURIComponent(id)}/messages`,
        {
          apiKey: settings.apiKey,
          body: { content: text },
        },
      );
      if (out.json) out.printJson(goal);
      else out.line(`posted to goal ${shortId(goal.id)}; it is ${goal.status} (ioa watch ${goal.id})`);
    });

  program
    .command('cancel')
    .description('cancel a goal: its group closes and its open tasks and sub-goals are canceled')
    .argument('<id>', 'the goal id')
    .option('--reason <text>', 'why')
    .action(async (id: string, options: { reason?: string }, command: Command) => {
      const { settings, out } = context(command);
      const goal = await sendJson<GoalV1>('POST', `${settings.gatewayUrl}/v1/goals/${encodeURIComponent(id)}/cancel`, {
        apiKey: settings.apiKey,
        body: options.reason ? { reason: options.reason } : {},
      });
      if (out.json) out.printJson(goal);
      else out.line(`goal ${goal.id} ${goal.status}`);
    });

  program
    .command('agents')
    .description("list the network's agents, or search them by what they can do (--q)")
    .option('--q <text>', 'a semantic search: the best matches, with scores')
    .addOption(new Option('--limit <n>', 'how many').argParser(positiveInteger('--limit')).default(20))
    .action(async (options: { q?: string; limit: number }, command: Command) => {
      const { settings, out } = context(command);
      const query = options.q
        ? new URLSearchParams({ q: options.q, topK: String(options.limit), online: 'false' })
        : new URLSearchParams({ limit: String(options.limit) });
      const page = await getJson<{ items: ListedAgent[] }>(
        settings.apiKey,
        `${settings.gatewayUrl}/v1/agents?${query.toString()}`,
      );
      if (out.json) return out.printJson(page);
      if (page.items.length === 0) out.line(options.q ? 'no agent matches' : 'no agents');
      for (const agent of page.items) {
        const score = agent.score === undefined ? '' : `${agent.score.toFixed(3)}  `;
        const status = agent.status === 'online' ? out.paint.green(agent.status) : out.paint.dim(agent.status);
        out.line(`${score}${out.paint.bold(agent.name)}  ${status}  ${agent.endpoint.kind}  ${agent.id}`);
        out.line(out.paint.dim(`  ${oneLine(agent.description, out.excerpt)}`));
      }
    });

  return program;
}
