import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runJavaScript, sandboxCommand, type SandboxLimits } from './javascript-sandbox.js';
import { describeRun } from './code-runner.agent.js';

const limits: SandboxLimits = {
  timeoutMs: 5000,
  memoryMb: 64,
  processMemoryMb: 192,
  cpuSeconds: 10,
  maxOutputBytes: 64 * 1024,
};
const FOUR_GIB_FILL = 'const hoard = new Uint8Array(4 * 2 ** 30).fill(1); console.log("filled", hoard.length)';

describe('the JavaScript sandbox (a real node child process)', () => {
  it('runs code and captures stdout, stderr and the exit code', async () => {
    const result = await runJavaScript(
      'console.log("sum", [1, 2, 3].reduce((a, b) => a + b)); console.error("careful")',
      limits,
    );
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: 'sum 6\n',
      stderr: 'careful\n',
      timedOut: false,
      memoryExceeded: false,
    });
    expect(describeRun(result, limits)).toEqual({
      state: 'completed',
      content: expect.stringMatching(/^sum 6\n\nstderr:\ncareful\n\n\(exit code 0, \d+ ms\)$/),
    });
  });

  it('shows the value of the last expression when the code prints nothing, and awaits promises', async () => {
    expect((await runJavaScript('let s = 0; for (let i = 1; i <= 10; i++) s += i; s', limits)).stdout).toBe('55\n');
    expect(
      (await runJavaScript('new Promise((resolve) => setTimeout(() => resolve(2 ** 10), 10))', limits)).stdout,
    ).toBe('1024\n');
  });

  it('reports a failing script as failed with its error', async () => {
    const result = await runJavaScript('const x = 1;\nnull.boom;', limits);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/TypeError: Cannot read properties of null \(reading 'boom'\)/);
    expect(result.stderr).toContain('task.js:2');
    expect(describeRun(result, limits).state).toBe('failed');
  });

  it('kills code that runs past the time limit', async () => {
    const started = Date.now();
    const result = await runJavaScript('while (true) {}', { ...limits, timeoutMs: 800 });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(describeRun(result, { ...limits, timeoutMs: 800 })).toMatchObject({
      state: 'failed',
      content: expect.stringContaining('killed after the 800 ms time limit'),
    });
  });

  it('stops code that exceeds the heap cap', async () => {
    const result = await runJavaScript(
      'const hoard = []; for (;;) hoard.push(new Array(100000).fill(Math.random()));',
      {
        ...limits,
        memoryMb: 32,
        timeoutMs: 20_000,
      },
    );
    expect(result.memoryExceeded).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(describeRun(result, { ...limits, memoryMb: 32, timeoutMs: 20_000 })).toMatchObject({
      state: 'failed',
      content: expect.stringContaining('out of memory (limits: 32 MB heap, 192 MB in all)'),
    });
  });

  // The heap cap does not cover buffers: before RLIMIT_DATA this allocated and filled 4 GiB of the machine.
  it('fails a 4 GiB buffer cleanly: the whole process is capped, not only the V8 heap', async () => {
    const result = await runJavaScript(FOUR_GIB_FILL, limits);
    expect(result).toMatchObject({ memoryExceeded: true, timedOut: false, stdout: '' });
    expect(result.stderr).toContain('RangeError: Array buffer allocation failed');
    expect(describeRun(result, limits)).toEqual({
      state: 'failed',
      content: expect.stringContaining('stopped: out of memory (limits: 64 MB heap, 192 MB in all)'),
    });
  });

  it('caps many small buffers too (each under any single-allocation limit, together over the process cap)', async () => {
    const result = await runJavaScript(
      'const kept = []; for (let i = 0; i < 64; i++) kept.push(new Uint8Array(8 * 2 ** 20).fill(1)); console.log(kept.length)',
      limits,
    );
    expect(result.memoryExceeded).toBe(true);
    expect(result.stdout).toBe('');
    // Within the cap the same code works: the limit is the configured one, not an accident of the machine.
    const within = await runJavaScript(
      'const kept = []; for (let i = 0; i < 8; i++) kept.push(new Uint8Array(8 * 2 ** 20).fill(1)); console.log(kept.length)',
      limits,
    );
    expect(within).toMatchObject({ exitCode: 0, stdout: '8\n', memoryExceeded: false });
  });

  it('two hostile tasks at once both fail on their own cap, and the sandbox works right after', async () => {
    const [first, second] = await Promise.all([
      runJavaScript(FOUR_GIB_FILL, limits),
      runJavaScript(FOUR_GIB_FILL, limits),
    ]);
    for (const result of [first, second]) {
      expect(result).toMatchObject({ memoryExceeded: true, timedOut: false, stdout: '' });
      expect(result.durationMs).toBeLessThan(limits.timeoutMs);
    }
    expect((await runJavaScript('console.log("still here")', limits)).stdout).toBe('still here\n');
  });

  it('kills code that spends its CPU time limit, even when the wall clock would allow more', async () => {
    const result = await runJavaScript('while (true) {}', { ...limits, cpuSeconds: 1, timeoutMs: 20_000 });
    expect(result).toMatchObject({ cpuExceeded: true, timedOut: false, signal: 'SIGXCPU' });
    expect(result.durationMs).toBeLessThan(10_000);
    expect(describeRun(result, { ...limits, cpuSeconds: 1 })).toMatchObject({
      state: 'failed',
      content: expect.stringContaining('killed: the 1 s CPU time limit was exceeded'),
    });
  });

  it('kills the process when its output floods', async () => {
    const result = await runJavaScript('for (;;) console.log("x".repeat(1000))', { ...limits, maxOutputBytes: 4096 });
    expect(result.outputExceeded).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(4096);
  });

  it('ends by itself past its time limit when nobody kills it (its parent crashed)', async () => {
    const { command, args } = sandboxCommand({ ...limits, timeoutMs: 300 });
    const orphan = spawn(command, args, { env: {}, stdio: ['pipe', 'ignore', 'ignore'] });
    orphan.stdin.end('setInterval(() => {}, 1000)');
    const exitCode = await new Promise<number | null>((resolve) => orphan.on('close', (code) => resolve(code)));
    expect(exitCode).toBe(124);
  });

  it('is killed when the task is canceled', async () => {
    const controller = new AbortController();
    const running = runJavaScript('setInterval(() => {}, 1000)', { ...limits, timeoutMs: 30_000 }, controller.signal);
    controller.abort();
    await expect(running).resolves.toMatchObject({ canceled: true, timedOut: false });
  });

  describe('isolation', () => {
    let server: Server;
    let port: number;
    let connections = 0;

    beforeAll(async () => {
      server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('gives the code no require, process, fetch or environment, and no way back to them', async () => {
      const probes = [
        'typeof require',
        'typeof process',
        'typeof fetch',
        'typeof module',
        // The classic escape from vm: reach the host realm's Function through a host object, build code from a string.
        'setTimeout.constructor("return process")().pid',
        'this.constructor.constructor("return process")().pid',
        'eval("1 + 1")',
      ];
      const code = probes
        .map(
          (probe) =>
            `try { console.log(${JSON.stringify(probe)}, "=>", ${probe}); } catch (error) { console.log(${JSON.stringify(probe)}, "=> blocked:", error.name); }`,
        )
        .join('\n');
      const result = await runJavaScript(code, limits);
      expect(result.stdout.trim().split('\n')).toEqual([
        'typeof require => undefined',
        'typeof process => undefined',
        'typeof fetch => undefined',
        'typeof module => undefined',
        'setTimeout.constructor("return process")().pid => blocked: EvalError',
        'this.constructor.constructor("return process")().pid => blocked: EvalError',
        'eval("1 + 1") => blocked: EvalError',
      ]);
    });

    it('cannot open a network connection', async () => {
      const code = `
        import('node:net').then(
          (net) => { net.connect(${port}, '127.0.0.1'); console.log('imported net'); },
          (error) => console.log('import blocked:', error.code ?? error.name),
        );`;
      const result = await runJavaScript(code, limits);
      expect(result.stdout).toMatch(/^import blocked: /);
      expect(result.stdout).not.toContain('imported net');
      expect(connections).toBe(0);
    });
  });
});
