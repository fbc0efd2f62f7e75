import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { SANDBOX_CHILD_SOURCE } from './sandbox-child.source.js';

export interface SandboxLimits {
  /** Wall-clock limit; the child is killed (SIGKILL) when it is reached. */
  timeoutMs: number;
  /** V8 old-space limit (`--max-old-space-size`): the JavaScript heap only, not buffers or native memory. */
  memoryMb: number;
  /**
   * The whole process's writable memory (RLIMIT_DATA, which Linux applies to every private writable mapping: the
   * V8 heap, ArrayBuffers, malloc, thread stacks). An allocation past it fails inside the task ("Array buffer
   * allocation failed") or aborts V8; it never reaches the machine. Node itself needs about 60 MB.
   */
  processMemoryMb: number;
  /** CPU seconds of the whole process (RLIMIT_CPU): SIGXCPU, then SIGKILL a second later. Outlives the parent. */
  cpuSeconds: number;
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
  cpuExceeded: boolean;
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

/** How long the child waits past the wall-clock limit before ending itself (only matters once its parent is gone). */
const ORPHAN_GRACE_MS = 1000;
const MEBIBYTE = 1024 * 1024;
/** What node prints (or throws into the task) when an allocation hits the heap cap or RLIMIT_DATA. */
const OUT_OF_MEMORY =
  /heap out of memory|Reached heap limit|Array buffer allocation failed|Fatal process out of memory|Cannot allocate memory/i;

/**
 * The command that starts the child: `prlimit` (util-linux, essential in Debian and in the node images) sets the
 * kernel's limits on the process it then execs as node, so they hold for everything the child does, whatever V8
 * thinks. RLIMIT_DATA rather than RLIMIT_AS: node reserves some 600 MB of address space it never touches, so an
 * address-space cap would either stop it from starting or be ten times too loose; RLIMIT_DATA counts only memory
 * that can be written. No file may be written (RLIMIT_FSIZE 0) and no core dumped.
 */
export function sandboxCommand(limits: SandboxLimits): { command: string; args: string[] } {
  const cpu = Math.max(1, Math.ceil(limits.cpuSeconds));
  return {
    command: 'prlimit',
    args: [
      `--data=${limits.processMemoryMb * MEBIBYTE}`,
      `--cpu=${cpu}:${cpu + 1}`,
      '--fsize=0',
      '--core=0',
      '--',
      process.execPath,
      ...sandboxFlags(limits),
      '-e',
      SANDBOX_CHILD_SOURCE,
      // argv[1] of the child: its own wall clock, so a child whose parent died does not idle forever.
      String(limits.timeoutMs + ORPHAN_GRACE_MS),
    ],
  };
}

/**
 * Runs JavaScript in a separate, limited `node` process with an empty environment and captures its output.
 * Resolves (never rejects) with what happened; the caller decides whether it is a success.
 */
export function runJavaScript(code: string, limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxResult> {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const { command, args } = sandboxCommand(limits);
    const child = spawn(command, args, {
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
        // V8 aborts (SIGABRT, exit 134) when the heap cap or RLIMIT_DATA is hit; a buffer past RLIMIT_DATA throws
        // a RangeError into the task, which ends it with exit code 1.
        memoryExceeded:
          !flags.timedOut &&
          !flags.canceled &&
          (exitSignal === 'SIGABRT' || exitCode === 134 || OUT_OF_MEMORY.test(stderr)),
        cpuExceeded: !flags.timedOut && !flags.canceled && exitSignal === 'SIGXCPU',
      });
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({
        exitCode: null,
        signal: null,
        stdout: '',
        stderr:
          (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? `Could not start the sandbox: ${command} was not found (the code runner needs Linux with util-linux)`
            : `Could not start the sandbox: ${error.message}`,
        durationMs: Date.now() - startedAt,
        ...flags,
        memoryExceeded: false,
        cpuExceeded: false,
      });
    });
  });
}
