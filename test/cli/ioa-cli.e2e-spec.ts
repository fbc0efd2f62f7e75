import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { GoalV1, ListGoalsV1Response } from '@ioa/contracts';
import { expectEventually, TEST_ADMIN_API_KEY } from '@ioa/testing';
import {
  greeterMoves,
  startSelfSpeakingAgent,
  type SelfSpeakingAgent,
} from '../../apps/gateway/src/testing/self-speaking-agent.js';
import {
  startGatewayOverPlatform,
  type GatewayOverPlatform,
} from '../../apps/gateway/src/testing/gateway-over-platform.js';

const ROOT = process.cwd();
/** The real binary, as package.json's `bin` names it; it runs the compiled CLI from dist/. */
const BIN = join(ROOT, 'apps', 'cli', 'bin', 'ioa.js');
const COMPILED = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const GOAL_DEADLINE_MS = 120_000;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The `ioa` command as a person or a script runs it: the built binary in a child process (piped, so plain lines),
 * against the real platform behind the gateway on a port.
 */
describe('the ioa CLI against a running platform', () => {
  let stack: GatewayOverPlatform;
  const agents: SelfSpeakingAgent[] = [];
  /** Children a failed test may leave running. */
  const children: ChildProcess[] = [];

  function ioa(args: string[], environment: Record<string, string> = {}): Promise<CliRun> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, '--gateway', stack.baseUrl, ...args],
        {
          cwd: ROOT,
          timeout: GOAL_DEADLINE_MS,
          env: { PATH: process.env.PATH ?? '', IOA_API_KEY: TEST_ADMIN_API_KEY, ...environment },
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  beforeAll(async () => {
    // CI builds before it tests; a developer's checkout may not have dist/ yet.
    if (!existsSync(COMPILED)) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    stack = await startGatewayOverPlatform();
  }, 600_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill();
    for (const agent of agents) agent.stop();
    await stack?.stop();
  });

  it('follows a goal to completion: the team, messages and task states as lines, then the conclusion; exit 0', async () => {
    const run = await ioa([
      'goal',
      'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.',
      '--member',
      'code-runner',
      '--member',
      'doc-researcher',
      '--member',
      'writer',
      '--follow',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.some((line) => /team\s+3 member\(s\): code-runner \(leads\), doc-researcher, writer/.test(line))).toBe(
      true,
    );
    expect(lines.some((line) => /message\s+code-runner \[/.test(line))).toBe(true);
    expect(lines.some((line) => /task\s+[0-9a-f]{8}\s+doc-researcher\s+\w+\s+completed/.test(line))).toBe(true);
    expect(run.stdout).toContain('Conclusion (goal completed):');
    // Piped output: no colour codes.
    expect(run.stdout).not.toContain('\u001b[');
  });

  it('prints the finished goal as JSON with --json, for scripts', async () => {
    const run = await ioa(['--json', 'goal', 'Write two lines about feeds', '--member', 'writer', '--follow']);
    expect(run.code).toBe(0);
    const goal = JSON.parse(run.stdout) as GoalV1;
    expect(goal).toMatchObject({ goal: 'Write two lines about feeds', status: 'completed' });
    expect(goal.team.map((member) => member.name)).toEqual(['writer']);
  });

  it('exits non-zero when the goal fails, and says why', async () => {
    const run = await ioa(['goal', 'Say hello', '--member', 'nobody-by-this-name', '--follow']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Conclusion (goal failed');
    expect(run.stdout).toContain('nobody-by-this-name');
  });

  it('shows the question the team asks the person while following; ioa answer lets the goal go on to completion', async () => {
    agents.push(await startSelfSpeakingAgent(stack.platform.client, 'cli-greeter', greeterMoves('Which language?')));
    // The follower runs as a person would leave it running in one terminal, while they answer from another.
    const follower = spawn(
      process.execPath,
      [BIN, '--gateway', stack.baseUrl, 'goal', 'Greet the team', '--member', 'cli-greeter', '--follow'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', IOA_API_KEY: TEST_ADMIN_API_KEY },
      },
    );
    children.push(follower);
    let stdout = '';
    follower.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => follower.on('exit', resolve));
    const goalId = await expectEventually<string | undefined>(
      () => /The team asks you something\. Answer with: ioa answer ([0-9a-f-]{36})/.exec(stdout)?.[1],
      { timeoutMs: GOAL_DEADLINE_MS, message: 'the follower shows the question' },
    );
    expect(stdout).toMatch(/cli-greeter \[discussion\] → the person\s+Which language\?/);
    const answered = await ioa(['answer', goalId!, 'German']);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain('it is working');
    expect(await exited).toBe(0);
    expect(stdout).toContain('Hallo, Team! (greeting in German)');
    expect(stdout).toContain('Conclusion (goal completed):');
  });

  it('searches agents by what they can do, with scores', async () => {
    const run = await ioa(['agents', '--q', 'write a report']);
    expect(run.code).toBe(0);
    const [best] = run.stdout.split('\n');
    expect(best).toMatch(/^0\.\d{3}\s+writer\s+online\s+nats\s+[0-9a-f-]{36}$/);
  });

  it('lists goals, cancels one (watch then exits 1), and refuses an answer to a canceled goal', async () => {
    // A member that asks the person first: the goal then waits for an answer and cannot end before the cancel
    // (a goal of the offline writer alone can complete before the next CLI process has started).
    agents.push(await startSelfSpeakingAgent(stack.platform.client, 'cli-asker', greeterMoves('Shall I go on?')));
    const submitted = await ioa([
      '--json',
      'goal',
      'Wait to be canceled',
      '--member',
      'cli-asker',
      '--max-turns',
      '20',
    ]);
    expect(submitted.code).toBe(0);
    const { id } = JSON.parse(submitted.stdout) as { id: string };
    const canceled = await ioa(['cancel', id, '--reason', 'changed my mind']);
    expect(canceled).toMatchObject({ code: 0, stdout: `goal ${id} canceled\n` });
    const watched = await ioa(['watch', id]);
    expect(watched.code).toBe(1);
    expect(watched.stdout).toContain('Conclusion (goal canceled: changed my mind)');

    const listed = await ioa(['--json', 'goals', '--status', 'canceled']);
    expect((JSON.parse(listed.stdout) as ListGoalsV1Response).items.map((goal) => goal.id)).toContain(id);
    const plain = await ioa(['goals', '--limit', '2']);
    expect(plain.code).toBe(0);
    expect(plain.stdout.split('\n')[0]).toContain(id);

    const answered = await ioa(['answer', id, 'One more thing']);
    expect(answered.code).toBe(1);
    expect(answered.stderr).toMatch(/^ioa: the gateway answered 409: /);
  });

  it('says what is wrong, with exit code 2 for a wrong command and 1 for a refused key', async () => {
    expect((await ioa(['goal'])).code).toBe(2);
    expect((await ioa(['goals', '--limit', 'lots'])).code).toBe(2);
    const refused = await ioa(['goals'], { IOA_API_KEY: 'ioa_not-a-key' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^ioa: the gateway answered 401/);
    const noKey = await ioa(['goals'], { IOA_API_KEY: '', IOA_DATA_DIR: join(ROOT, '.no-such-data-dir') });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('no API key');
  });
});
