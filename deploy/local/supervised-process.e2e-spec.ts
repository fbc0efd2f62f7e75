import { afterEach, describe, expect, it } from '@jest/globals';
import { expectEventually } from '@ioa/testing';
import { isAlive, SupervisedProcess, type ProcessExit, type SupervisedProcessOptions } from './supervised-process.js';

/** A real child process: prints its pid, then stays up until it is killed (or exits with `exitCode` at once). */
function nodeProcess(overrides: Partial<SupervisedProcessOptions> & { exitCode?: number } = {}) {
  const log: string[] = [];
  const output: string[] = [];
  const script =
    overrides.exitCode === undefined
      ? 'console.log("up " + process.pid); setInterval(() => undefined, 1000);'
      : `console.log("failing"); process.exit(${overrides.exitCode});`;
  const supervised = new SupervisedProcess({
    label: 'worker#1',
    command: process.execPath,
    args: ['-e', script],
    spawnOptions: { stdio: ['ignore', 'pipe', 'pipe'] },
    mode: 'unless-stopped',
    policy: { initialDelayMs: 50, maxDelayMs: 400, stableAfterMs: 60_000 },
    onLine: (line) => output.push(line),
    log: (line) => log.push(line),
    ...overrides,
  });
  return { supervised, log, output };
}

describe('a supervised service process', () => {
  const started: SupervisedProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((process) => process.stop(2000)));
  });

  it('is restarted after kill -9, and the launcher log says which process, how it died and when it comes back', async () => {
    const { supervised, log, output } = nodeProcess();
    started.push(supervised);
    supervised.start();
    const first = Number(await expectEventually(() => supervised.pid, { message: 'the first process runs' }));
    await expectEventually(() => output.includes(`up ${first}`), { message: 'the first process is up' });

    process.kill(first, 'SIGKILL');

    const second = Number(
      await expectEventually(() => (supervised.pid !== first ? supervised.pid : undefined), {
        message: 'a new process replaces the killed one',
      }),
    );
    await expectEventually(() => output.includes(`up ${second}`), { message: 'the new process is up' });
    expect(isAlive(first)).toBe(false);
    expect(supervised.restarts).toBe(1);
    expect(log[0]).toMatch(/^worker#1 died \(signal SIGKILL\) after \d+\.\d s; restart attempt 1 in 0\.05 s$/);
    expect(log[1]).toBe(`worker#1 restarted (pid ${second}, attempt 1)`);
  });

  it('backs off when a process keeps failing, and stop() ends the process and the restarts', async () => {
    const { supervised, log } = nodeProcess({ exitCode: 3 });
    started.push(supervised);
    supervised.start();
    await expectEventually(() => supervised.restarts >= 3, { timeoutMs: 10_000, message: 'three restarts' });
    const delays = log
      .filter((line) => line.includes('restart attempt'))
      .map((line) => /in (\d+\.\d+) s/.exec(line)?.[1]);
    expect(delays.slice(0, 3)).toEqual(['0.05', '0.10', '0.20']);
    expect(log[0]).toMatch(/^worker#1 died \(exit code 3\) after/);

    const restartsBeforeStop = supervised.restarts;
    await supervised.stop(2000);
    // stop() cancels a pending restart too: nothing runs and nothing more is counted.
    expect(supervised.pid).toBeUndefined();
    expect(supervised.restarts).toBe(restartsBeforeStop);
  });

  it('with restart "no", reports the exit with the last lines instead of restarting', async () => {
    let reported: ProcessExit | undefined;
    const { supervised, log } = nodeProcess({ exitCode: 2, mode: 'no', onGiveUp: (exit) => (reported = exit) });
    started.push(supervised);
    supervised.start();
    const exit = await expectEventually(() => reported, { message: 'the exit is reported' });
    expect(exit).toEqual({ exitCode: 2, signal: null, lastLines: ['failing'] });
    expect(supervised.restarts).toBe(0);
    expect(log).toEqual([]);
  });
});
