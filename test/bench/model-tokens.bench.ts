import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AgentIndexedV1,
  GetGoalV1,
  ListAgentsV1,
  ListMessagesV1,
  PostGoalMessageV1,
  RegisterAgentV1,
  SubmitGoalV1,
  type ChatMessageV1,
  type GoalV1,
  type ListAgentsV1Response,
  type ListMessagesV1Response,
  type ModelUsageV1,
  type RegisterAgentV1Response,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import { estimateTokens, LANGUAGE_MODEL, type LanguageModel, type ModelCall, type ModelPurpose } from '@ioa/llm';
import { connectRaw, expectEventually, rawRequest } from '@ioa/testing';
import { AgentHostModule } from '../../apps/agent-host/src/agent-host.module.js';
import { ChatModule } from '../../apps/chat/src/chat.module.js';
import { DiscoveryModule } from '../../apps/discovery/src/discovery.module.js';
import { RegistryModule } from '../../apps/registry/src/registry.module.js';
import { SchedulerModule } from '../../apps/scheduler/src/scheduler.module.js';
import { DEMO_GOAL, SAMPLE_AGENTS } from '../../deploy/local/demo-client.js';
import {
  benchCommand,
  benchLog,
  databaseVersion,
  describeMachine,
  loadAverage,
  ratio,
  runDate,
  startBenchInfrastructure,
  updateBenchmarksDoc,
} from './bench-support.js';

/**
 * # Benchmark: model calls and tokens per goal, bounded prompts against IoA's full history
 *
 * `npm run bench:tokens` (options: `BENCH_FOLLOW_UPS=5`, `BENCH_NO_DOCS=1`).
 *
 * The whole platform (registry, discovery, chat, scheduler, agent-host with its built-in code runner, document
 * researcher and writer) runs the demo goal with the offline model. Every model call of every service is recorded
 * as it is made (purpose, the agent it speaks or works for, the usage the model reports, and the prompt itself).
 * The offline model counts tokens as words / 0.75 of the rendered prompt (instructions + input as JSON) and of the
 * output: an estimate, the same one budgets use.
 *
 * IoA put the whole group history into every call. For each call that carries a chat window (`turn.move`,
 * `conclusion`, `task.brief`), the same prompt is rebuilt with the window replaced by the full transcript up to the
 * newest message of that window, and its tokens estimated the same way: the sum over calls is what full-history
 * prompting would have cost for the same conversation. The conversation then grows with follow-ups from a person
 * (each re-opens the group and runs another round), which is where a bounded window starts to matter.
 */

const log = benchLog('tokens');
const SECTION = 'model-tokens';
const FOLLOW_UPS = Math.max(0, Math.round(Number(process.env.BENCH_FOLLOW_UPS ?? 5)));

/** The built-in agents, named as members for the conversation that grows with follow-ups. */
const DEMO_MEMBERS = ['code-runner', 'doc-researcher', 'writer'];

/** A person's follow-ups: each re-opens the concluded group and asks for another round of work. */
const FOLLOW_UP_MESSAGES = [
  'Now run `console.log([1, 2, 3, 4].map((n) => n * n).join(" "))`, then look up in the documents how the group chat handles turn timeouts.',
  'Also run `console.log(2 ** 16)`, then find in the documents what JetStream stores for the platform.',
  'Finally run `console.log(new Date(0).toISOString())`, then look up in the documents how discovery ranks agents.',
  'One more: run `console.log("ok".repeat(3))`, then find in the documents how an agent registers.',
  'And run `console.log(Math.max(3, 9, 4))`, then look up in the documents how subjects are named.',
];

interface RecordedCall {
  service: 'scheduler' | 'agent-host';
  purpose: ModelPurpose;
  agent: string;
  usage: ModelUsageV1;
  instructions: string;
  input: Record<string, unknown>;
  /** Round of the conversation (0 = the goal, 1.. = follow-ups). */
  round: number;
  variant: string;
}

interface WindowItem {
  seq: number;
  [field: string]: unknown;
}

class ModelRecorder {
  readonly calls: RecordedCall[] = [];
  round = 0;
  variant = '';

  instrument(model: LanguageModel, service: RecordedCall['service']): void {
    const original = model.decide.bind(model);
    (model as { decide: LanguageModel['decide'] }).decide = async <T extends object>(call: ModelCall<T>) => {
      const decision = await original(call);
      this.calls.push({
        service,
        purpose: call.purpose,
        agent: agentOf(service, call),
        usage: decision.usage,
        instructions: call.instructions,
        input: JSON.parse(JSON.stringify(call.input)) as Record<string, unknown>,
        round: this.round,
        variant: this.variant,
      });
      return decision;
    };
  }
}

/** Whom a call speaks or works for. */
function agentOf(service: RecordedCall['service'], call: ModelCall<object>): string {
  const input = call.input as { self?: { name?: string }; agent?: { name?: string }; assignee?: { name?: string } };
  switch (call.purpose) {
    case 'turn.move':
    case 'conclusion':
      return input.self?.name ?? 'unknown speaker';
    case 'task.delegate':
      return input.agent?.name ?? 'unknown agent';
    case 'task.brief':
      // IoA had the task's owner rewrite it; here the scheduler writes it for the owner.
      return input.assignee?.name ?? 'unknown assignee';
    case 'writer.report':
      return 'writer';
    case 'team.queries':
    case 'team.pick':
      return `${service} (team formation)`;
  }
}

/** The tokens of a call's prompt as the offline model counts them. */
function promptTokens(instructions: string, input: object): number {
  return estimateTokens(`${instructions}\n${JSON.stringify(input)}`);
}

/**
 * The call's prompt with its chat window replaced by the whole transcript up to the window's newest message — what
 * IoA would have sent. Calls without a window are unchanged.
 */
function fullHistoryTokens(call: RecordedCall, transcript: ChatMessageV1[], withoutLedger = false): number {
  const window = call.input.recentMessages as WindowItem[] | undefined;
  if (!Array.isArray(window) || window.length === 0) return call.usage.promptTokens;
  const newest = Math.max(...window.map((item) => item.seq));
  const fields = Object.keys(window[0]);
  const bySeq = new Map(window.map((item) => [item.seq, item]));
  const full = transcript
    .filter((message) => message.seq <= newest)
    .map((message) => {
      // Same fields as the window's items (each purpose renders messages its own way); the content untruncated.
      const known = bySeq.get(message.seq);
      const item: Record<string, unknown> = {};
      for (const field of fields) item[field] = (message as unknown as Record<string, unknown>)[field];
      return known ? { ...item, ...known, content: message.content } : item;
    });
  const input: Record<string, unknown> = { ...call.input, recentMessages: full };
  // IoA had no task ledger: results reached the prompt only as chat messages, which the full transcript holds.
  if (withoutLedger) delete input.tasks;
  return promptTokens(call.instructions, input);
}

/** Where the tokens of a `turn.move` prompt are: the chat window, the task ledger, and the rest. */
function composition(call: RecordedCall): { window: number; ledger: number; rest: number } {
  const window = estimateTokens(JSON.stringify(call.input.recentMessages ?? []));
  const ledger = estimateTokens(JSON.stringify(call.input.tasks ?? []));
  return { window, ledger, rest: call.usage.promptTokens - window - ledger };
}

interface RoundFigures {
  round: number;
  label: string;
  messages: number;
  transcriptTokens: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  fullHistoryPromptTokens: number;
  fullHistoryWithoutLedger: number;
  windowedCalls: number;
  /** Mean tokens per `turn.move` prompt: chat window, task ledger, the rest (instructions, goal, members…). */
  turnPrompt: { window: number; ledger: number; rest: number; calls: number };
  seconds: number;
}

interface VariantFigures {
  variant: string;
  goal: GoalV1;
  calls: RecordedCall[];
  transcript: ChatMessageV1[];
  rounds: RoundFigures[];
}

describe('bench: model calls and tokens per goal', () => {
  it(
    'the demo goal as npm run demo runs it, then a conversation grown by follow-ups',
    async () => {
      const started = performance.now();
      const loadBefore = loadAverage();
      const infrastructure = await startBenchInfrastructure('pglite');
      infrastructure.applyEnvironment({});
      const services: INestMicroservice[] = [];
      let external: NatsConnection | undefined;
      try {
        log('starting nats-server, PGlite, registry, discovery, chat, scheduler and agent-host');
        for (const [module, name] of [
          [RegistryModule, 'registry'],
          [DiscoveryModule, 'discovery'],
          [ChatModule, 'chat'],
          [SchedulerModule, 'scheduler'],
          [AgentHostModule, 'agent-host'],
        ] as const) {
          services.push(await createService(module, { name, logger: ['error', 'fatal'] }));
        }
        const recorder = new ModelRecorder();
        recorder.instrument(services[3].get<LanguageModel>(LANGUAGE_MODEL), 'scheduler');
        recorder.instrument(services[4].get<LanguageModel>(LANGUAGE_MODEL), 'agent-host');
        external = await connectRaw(infrastructure.natsUrl);
        const connection = external;
        const ok = async <T>(subject: string, body: unknown): Promise<T> => {
          const reply = await rawRequest(connection, subject, body, 30_000);
          if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
          return reply.data as T;
        };
        await expectEventually(
          async () => {
            const list = await ok<ListAgentsV1Response>(ListAgentsV1.subject, { owner: 'ioa-builtin' });
            return list.items.filter((card) => card.status === 'online').length === 3;
          },
          { timeoutMs: 120_000, message: 'the built-in agents are online' },
        );
        const version = await databaseVersion(infrastructure.databaseUrl, 'pglite');

        /** Waits for the goal to settle in `completed` after `since` (its updatedAt moves on each round). */
        const completed = async (goalId: string, after: string | null): Promise<GoalV1> =>
          (await expectEventually(
            async () => {
              const goal = await ok<GoalV1>(GetGoalV1.subject, { goalId });
              if (goal.status === 'failed' || goal.status === 'canceled') {
                throw new Error(`goal ${goal.status}: ${goal.statusReason}`);
              }
              return goal.status === 'completed' && goal.conclusion !== after ? goal : undefined;
            },
            { timeoutMs: 120_000, intervalMs: 100, message: `goal ${goalId} completes` },
          )) as GoalV1;
        const transcriptOf = async (groupId: string): Promise<ChatMessageV1[]> => {
          const items: ChatMessageV1[] = [];
          for (let after = 0; ;) {
            const page = await ok<ListMessagesV1Response>(ListMessagesV1.subject, {
              groupId,
              afterSeq: after,
              limit: 500,
            });
            items.push(...page.items);
            if (page.items.length < 500) return items;
            after = page.items[page.items.length - 1].seq;
          }
        };

        const runVariant = async (
          variant: string,
          members: string[] | undefined,
          followUps: number,
        ): Promise<VariantFigures> => {
          recorder.variant = variant;
          recorder.round = 0;
          const roundTimes: number[] = [];
          const roundEnds: number[] = [];
          let roundStart = performance.now();
          log(`${variant}: submitting the demo goal`);
          const submitted = await ok<GoalV1>(SubmitGoalV1.subject, {
            goal: DEMO_GOAL,
            ...(members ? { members } : {}),
          });
          let goal = await completed(submitted.id, null);
          roundTimes.push((performance.now() - roundStart) / 1000);
          roundEnds.push((await transcriptOf(goal.groupId!)).length);
          for (let index = 0; index < followUps; index++) {
            recorder.round = index + 1;
            roundStart = performance.now();
            log(`${variant}: follow-up ${index + 1}`);
            const before = goal.conclusion;
            await ok<GoalV1>(PostGoalMessageV1.subject, {
              goalId: goal.id,
              content: FOLLOW_UP_MESSAGES[index % FOLLOW_UP_MESSAGES.length],
            });
            goal = await completed(goal.id, before);
            roundTimes.push((performance.now() - roundStart) / 1000);
            roundEnds.push((await transcriptOf(goal.groupId!)).length);
          }
          const transcript = await transcriptOf(goal.groupId!);
          const calls = recorder.calls.filter((call) => call.variant === variant);
          const rounds = roundTimes.map((seconds, round): RoundFigures => {
            const inRound = calls.filter((call) => call.round === round);
            const upTo = transcript.filter((message) => message.seq <= roundEnds[round]);
            return {
              round,
              label: round === 0 ? 'the goal' : `follow-up ${round}`,
              messages: roundEnds[round],
              transcriptTokens: estimateTokens(upTo.map((message) => message.content).join('\n')),
              calls: inRound.length,
              promptTokens: sum(inRound.map((call) => call.usage.promptTokens)),
              completionTokens: sum(inRound.map((call) => call.usage.completionTokens)),
              fullHistoryPromptTokens: sum(inRound.map((call) => fullHistoryTokens(call, transcript))),
              fullHistoryWithoutLedger: sum(inRound.map((call) => fullHistoryTokens(call, transcript, true))),
              turnPrompt: meanComposition(inRound.filter((call) => call.purpose === 'turn.move')),
              windowedCalls: inRound.filter((call) => Array.isArray(call.input.recentMessages)).length,
              seconds,
            };
          });
          return { variant, goal, calls, transcript, rounds };
        };

        // As `npm run demo` does: the sample agents join first (none fits the goal), so team formation has to choose.
        log(`registering the demo's ${SAMPLE_AGENTS.length} sample agents and waiting for discovery to index them`);
        const indexed = new Set<string>();
        const watch = connection.subscribe(AgentIndexedV1.subject, {
          callback: (_error, message) => {
            indexed.add((JSON.parse(new TextDecoder().decode(message.data)) as { agentId: string }).agentId);
          },
        });
        const sampleIds: string[] = [];
        for (const card of SAMPLE_AGENTS) {
          sampleIds.push((await ok<RegisterAgentV1Response>(RegisterAgentV1.subject, card)).agent.id);
        }
        await expectEventually(() => sampleIds.every((id) => indexed.has(id)), {
          timeoutMs: 60_000,
          message: 'discovery indexes the sample agents',
        });
        watch.unsubscribe();

        const formed = await runVariant('the demo: team formed by the scheduler', undefined, 0);
        const explicit = await runVariant('explicit members, growing conversation', DEMO_MEMBERS, FOLLOW_UPS);
        const markdown = render({
          explicit,
          formed,
          databaseVersion: version,
          loadBefore,
          loadAfter: loadAverage(),
          seconds: (performance.now() - started) / 1000,
        });
        process.stdout.write(`\n${markdown}\n\n`);
        await updateBenchmarksDoc(SECTION, INTRO, 'offline-model', markdown, ['offline-model']);
        expect(formed.goal.status).toBe('completed');
        expect(explicit.goal.status).toBe('completed');
      } finally {
        await external?.close();
        for (const service of services.reverse()) await service.close().catch(() => undefined);
        await infrastructure.stop();
      }
    },
    10 * 60_000,
  );
});

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function meanComposition(calls: RecordedCall[]): RoundFigures['turnPrompt'] {
  const parts = calls.map(composition);
  const mean = (pick: (part: ReturnType<typeof composition>) => number) =>
    sum(parts.map(pick)) / Math.max(1, parts.length);
  return {
    window: mean((part) => part.window),
    ledger: mean((part) => part.ledger),
    rest: mean((part) => part.rest),
    calls: calls.length,
  };
}
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------------------------
// docs/benchmarks.md

const INTRO = `
## Model calls and tokens per goal: bounded prompts against full history

\`\`\`bash
npm run bench:tokens                       # the demo goal as npm run demo runs it; then ${FOLLOW_UPS} follow-ups on it
BENCH_FOLLOW_UPS=2 npm run bench:tokens    # a shorter conversation
\`\`\`

Code: \`test/bench/model-tokens.bench.ts\`.

**What it does.** The whole platform (registry, discovery, chat, scheduler, agent-host with the built-in code
runner, document researcher and writer) runs in one process on PGlite with the offline model, and every model call
of every service is recorded as it is made: purpose, the agent it speaks or works for, the usage the model reports,
and the prompt. First the demo exactly as \`npm run demo\` runs it: its ${SAMPLE_AGENTS.length} sample agents join, and
\`DEMO_GOAL\` from \`deploy/local/demo-client.ts\` — \`${DEMO_GOAL.replace(/`/g, '')}\` — is submitted without members,
so the scheduler forms the team (\`team.queries\`, \`team.pick\`); with the offline model the code runner and the
document researcher get asynchronous tasks and the writer a synchronous one. Then the same goal with the members
named (${DEMO_MEMBERS.map((name) => `\`${name}\``).join(', ')}), after which a person posts ${FOLLOW_UPS} follow-ups, each
re-opening the concluded group for another round of code, research and report: the conversation grows.

**Tokens are estimates.** The offline model counts words / 0.75 as tokens — of the rendered prompt (the
instructions plus the structured input as JSON) and of the output as JSON — the rule of thumb for English with BPE
tokenizers, and the same count budgets use. A real model's counts differ, but the comparison below does not depend on
the constant.

**The comparison with IoA.** IoA sent the whole group history with every call. Here, a turn gets the last 12
messages (and at most 48,000 characters) plus the task ledger, and a brief the last messages the scheduler reads. For
each call that carries a chat window (\`turn.move\`, \`conclusion\`, \`task.brief\`) the bench rebuilds the same prompt
with the window replaced by the full transcript up to that window's newest message (messages at full length), and
counts it the same way; the other calls (\`writer.report\`, \`task.delegate\`, team formation) carry no history and
count the same on both sides. The sum over calls is what full-history prompting would cost for the same
conversation. IoA had no task ledger (results reached the prompt only as chat messages), so a second column drops
the ledger from the full-history prompts: IoA's shape.
`;

interface TokensReport {
  explicit: VariantFigures;
  formed: VariantFigures;
  databaseVersion: string;
  loadBefore: string;
  loadAfter: string;
  seconds: number;
}

function groupBy(calls: RecordedCall[], key: (call: RecordedCall) => string): Array<[string, RecordedCall[]]> {
  const groups = new Map<string, RecordedCall[]>();
  for (const call of calls) groups.set(key(call), [...(groups.get(key(call)) ?? []), call]);
  return [...groups.entries()];
}

function usageRows(calls: RecordedCall[], key: (call: RecordedCall) => string): string[] {
  return groupBy(calls, key)
    .sort((a, b) => sum(b[1].map((call) => call.usage.promptTokens)) - sum(a[1].map((call) => call.usage.promptTokens)))
    .map(
      ([name, group]) =>
        `| ${name} | ${group.length} | ${thousands(sum(group.map((call) => call.usage.promptTokens)))} | ` +
        `${thousands(sum(group.map((call) => call.usage.completionTokens)))} |`,
    );
}

function render(report: TokensReport): string {
  const { explicit, formed } = report;
  const demo = formed.rounds[0];
  const named = explicit.rounds[0];
  const total = (rounds: RoundFigures[], pick: (round: RoundFigures) => number) => sum(rounds.map(pick));
  const ours = total(explicit.rounds, (round) => round.promptTokens);
  const ioa = total(explicit.rounds, (round) => round.fullHistoryPromptTokens);
  const ioaShape = total(explicit.rounds, (round) => round.fullHistoryWithoutLedger);
  const lastRound = explicit.rounds[explicit.rounds.length - 1];
  let cumulativeOurs = 0;
  let cumulativeIoa = 0;
  let cumulativeShape = 0;
  const lines = [
    `### Offline model — ${runDate()}`,
    '',
    `- Machine: ${describeMachine()}; load average (1/5/15 min) ${report.loadBefore} before, ${report.loadAfter} after ` +
      '(shared with other jobs)',
    `- Database: ${report.databaseVersion}; nats-server 2.9, local; model: offline (tokens = words / 0.75)`,
    `- Command: \`${benchCommand('bench:tokens')}\` (${FOLLOW_UPS} follow-ups; whole run ${Math.round(report.seconds)} s)`,
    '',
    `**The demo goal, as \`npm run demo\` runs it** (the scheduler formed the team ` +
      `${formed.goal.team.map((member) => `\`${member.name}\``).join(', ')} among ${SAMPLE_AGENTS.length + 3} agents; goal ` +
      `\`${formed.goal.status}\` with ${demo.messages} messages and ${formed.goal.tasks.length} tasks in ${demo.seconds.toFixed(1)} s): ` +
      `**${demo.calls} model calls, ${thousands(demo.promptTokens)} prompt + ${thousands(demo.completionTokens)} completion ` +
      `tokens**. The scheduler's own account of the goal: ${formed.goal.usage.modelCalls} calls, ` +
      `${thousands(formed.goal.usage.promptTokens)} + ${thousands(formed.goal.usage.completionTokens)} tokens.`,
    '',
    '| purpose | calls | prompt tokens | completion tokens |',
    '| --- | ---: | ---: | ---: |',
    ...usageRows(formed.calls, (call) => call.purpose),
    '',
    '| agent (whom the call speaks or works for) | calls | prompt tokens | completion tokens |',
    '| --- | ---: | ---: | ---: |',
    ...usageRows(formed.calls, (call) =>
      call.purpose === 'task.brief' ? `${call.agent} (its brief, written by the scheduler)` : call.agent,
    ),
    '',
    `With the members named (no team formation): ${named.calls} calls, ${thousands(named.promptTokens)} prompt + ` +
      `${thousands(named.completionTokens)} completion tokens.`,
    '',
    `**Bounded window against full history, as the conversation grows** (the goal with named members, then ` +
      `${FOLLOW_UPS} follow-ups; prompt tokens; _full history_ = the same calls with the whole transcript in place of ` +
      'the window):',
    '',
    "| round | messages at the end | transcript tokens | model calls (with a window) | prompt tokens: bounded | full history | full history, no ledger (IoA's shape) | cumulative: bounded | full history | no ledger | full ÷ bounded (cumulative) |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...explicit.rounds.map((round) => {
      cumulativeOurs += round.promptTokens;
      cumulativeIoa += round.fullHistoryPromptTokens;
      cumulativeShape += round.fullHistoryWithoutLedger;
      return (
        `| ${round.label} | ${round.messages} | ${thousands(round.transcriptTokens)} | ${round.calls} (${round.windowedCalls}) | ` +
        `${thousands(round.promptTokens)} | ${thousands(round.fullHistoryPromptTokens)} | ${thousands(round.fullHistoryWithoutLedger)} | ` +
        `${thousands(cumulativeOurs)} | ${thousands(cumulativeIoa)} | ${thousands(cumulativeShape)} | ${ratio(cumulativeIoa / cumulativeOurs)} |`
      );
    }),
    '',
    'What a `turn.move` prompt is made of, per round (mean tokens per call):',
    '',
    '| round | `turn.move` calls | chat window | task ledger | the rest (instructions, goal, members, reason) | total |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...explicit.rounds.map(
      (round) =>
        `| ${round.label} | ${round.turnPrompt.calls} | ${thousands(round.turnPrompt.window)} | ${thousands(round.turnPrompt.ledger)} | ` +
        `${thousands(round.turnPrompt.rest)} | ${thousands(round.turnPrompt.window + round.turnPrompt.ledger + round.turnPrompt.rest)} |`,
    ),
    '',
    `Over the whole conversation (${explicit.transcript.length} messages, ${explicit.rounds.length} rounds): ` +
      `${thousands(ours)} prompt tokens with the bounded window against ${thousands(ioa)} with the full transcript in ` +
      `its place (**${ratio(ioa / ours)}×**), or ${thousands(ioaShape)} (${ratio(ioaShape / ours)}×) in IoA's shape ` +
      `(full transcript, no ledger). For the goal alone (${named.messages} messages) the 12-message window ` +
      `${named.fullHistoryPromptTokens > named.promptTokens ? 'bites a little' : 'does not bite at all'}: ` +
      `${thousands(named.promptTokens)} against ${thousands(named.fullHistoryPromptTokens)} tokens` +
      (named.fullHistoryWithoutLedger < named.promptTokens
        ? ` — and IoA's shape would be cheaper (${thousands(named.fullHistoryWithoutLedger)}), since our prompts also carry the ledger.`
        : '.') +
      ` In the last round a \`turn.move\` prompt carried on average ${thousands(lastRound.turnPrompt.window)} tokens of chat ` +
      `window and ${thousands(lastRound.turnPrompt.ledger)} of task ledger, against ${thousands(named.turnPrompt.window)} and ` +
      `${thousands(named.turnPrompt.ledger)} in the first: the window is bounded by message count and characters, the ` +
      'ledger grows with every task of the group until its own cap (40 tasks, each result up to 2,000 characters: some ' +
      '80,000 characters).',
  ];
  return lines.join('\n');
}
