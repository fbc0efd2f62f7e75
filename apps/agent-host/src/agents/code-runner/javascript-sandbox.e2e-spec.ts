import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runJavaScript, type SandboxLimits } from './javascript-sandbox.js';
import { describeRun } from './code-runner.agent.js';

const limits: SandboxLimits = { timeoutMs: 5000, memoryMb: 64, maxOutputBytes: 64 * 1024 };

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
    expect(describeRun(result, limits.timeoutMs, limits.memoryMb)).toEqual({
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
    expect(describeRun(result, limits.timeoutMs, limits.memoryMb).state).toBe('failed');
  });

  it('kills code that runs past the time limit', async () => {
    const started = Date.now();
    const result = await runJavaScript('while (true) {}', { ...limits, timeoutMs: 800 });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(describeRun(result, 800, limits.memoryMb)).toMatchObject({
      state: 'failed',
      content: expect.stringContaining('killed after the 800 ms time limit'),
    });
  });

  it('stops code that exceeds the memory cap', async () => {
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
    expect(describeRun(result, 20_000, 32)).toMatchObject({
      state: 'failed',
      content: expect.stringContaining('32 MB memory limit'),
    });
  });

  it('kills the process when its output floods', async () => {
    const result = await runJavaScript('for (;;) console.log("x".repeat(1000))', { ...limits, maxOutputBytes: 4096 });
    expect(result.outputExceeded).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(4096);
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
