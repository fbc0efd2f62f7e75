import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { SANDBOX_CHILD_SOURCE } from './sandbox-child.source.js';

export interface SandboxLimits {
  /** Wall-clock limit; the child is killed (SIGKILL) when it is reached. */
  timeoutMs: number;
  /** V8 old-space limit (`--max-old-space-size`). */
  memoryMb: number;
  /** stdout + stderr kept; beyond that the child is killed, since flooding output is a runaway too. */
  maxOutputBytes: number;
}

export interface SandboxResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  memoryExceeded: boolean;
  outputExceeded: boolean;
  canceled: boolean;
}

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The node flags of the child: see `sandbox-child.source.ts` for what each layer is for. */
export function sandboxFlags(limits: Pick<SandboxLimits, 'memoryMb'>): string[] {
  return [
    // The permission model with nothing allowed (no --allow-* flag). Node 20/22 call it --experimental-permission;
    // from Node 23.5 it is --permission (and from Node 25 it also denies the network unless --allow-net).
    NODE_MAJOR >= 24 ? '--permission' : '--experimental-permission',
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${limits.memoryMb}`,
    '--max-semi-space-size=2',
    '--no-warnings', // the permission model's "experimental" warning would pollute stderr
    '--no-addons',
  ];
}

/**
 * Runs JavaScript in a separate, limited `node` process with an empty environment and captures its output.
 * Resolves (never rejects) with what happened; the caller decides whether it is a success.
 */
export function runJavaScript(code: string, limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxResult> {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [...sandboxFlags(limits), '-e', SANDBOX_CHILD_SOURCE], {
      env: {},
      cwd: tmpdir(),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const output = { stdout: [] as Buffer[], stderr: [] as Buffer[], bytes: 0 };
    const flags = { timedOut: false, outputExceeded: false, canceled: false };
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const collect = (target: Buffer[]) => (chunk: Buffer) => {
      const room = limits.maxOutputBytes - output.bytes;
      if (room > 0) target.push(chunk.subarray(0, room));
      output.bytes += chunk.length;
      if (output.bytes > limits.maxOutputBytes && !flags.outputExceeded) {
        flags.outputExceeded = true;
        kill();
      }
    };
    child.stdout.on('data', collect(output.stdout));
    child.stderr.on('data', collect(output.stderr));
    const timer = setTimeout(() => {
      flags.timedOut = true;
      kill();
    }, limits.timeoutMs);
    const onAbort = () => {
      flags.canceled = true;
      kill();
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    child.stdin.on('error', () => undefined); // the child may exit before reading everything
    child.stdin.end(code);
    child.on('close', (exitCode, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const stderr = Buffer.concat(output.stderr).toString('utf8');
      resolve({
        exitCode,
        signal: exitSignal,
        stdout: Buffer.concat(output.stdout).toString('utf8'),
        stderr,
        durationMs: Date.now() - startedAt,
        ...flags,
        // V8 aborts (SIGABRT, exit 134) with "heap out of memory" when the old-space cap is hit.
        memoryExceeded:
          !flags.timedOut &&
          !flags.canceled &&
          (exitSignal === 'SIGABRT' || exitCode === 134 || /heap out of memory|Reached heap limit/i.test(stderr)),
      });
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: `Could not start the sandbox: ${error.message}`,
        durationMs: Date.now() - startedAt,
        ...flags,
        memoryExceeded: false,
      });
    });
  });
}
