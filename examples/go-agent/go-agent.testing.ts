import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Builds examples/go-agent with Debian's Go and NATS client packages (GOPATH mode, nothing downloaded) and returns
 * the binary's path. Fails with the install command when Go is missing: CI installs it (.ci/run), so a missing
 * toolchain is a broken machine, not a reason to skip.
 */
export async function buildGoAgent(): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), 'ioa-go-agent-'));
  // Removed when the test process ends, whatever happened (a 7 MB binary per run would pile up in /tmp).
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  const output = join(directory, 'go-agent');
  try {
    await promisify(execFile)('go', ['build', '-o', output, '.'], {
      cwd: here,
      env: { ...process.env, GOPATH: '/usr/share/gocode', GO111MODULE: 'off' },
    });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (/ENOENT/.test(text)) {
      throw new Error(
        'Go is not installed: apt-get install golang-go golang-github-nats-io-go-nats-dev (CI does this in .ci/run)',
        { cause: error },
      );
    }
    throw new Error(`the Go agent does not build: ${text}`, { cause: error });
  }
  return output;
}

export interface RunningGoAgent {
  process: ChildProcess;
  /** Everything it logged so far (stderr). */
  log(): string;
  /** SIGTERM, then the exit code (null if it had to be killed after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

/** Starts the built agent; `command` runs it through a wrapper (e.g. `ip netns exec <ns>`). */
export function startGoAgent(
  binary: string,
  environment: Record<string, string>,
  command: string[] = [],
): RunningGoAgent {
  const [program, ...args] = [...command, binary];
  const child = spawn(program, args, { env: { ...process.env, ...environment }, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    log: () => output,
    stop: async (graceMs = 15_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
