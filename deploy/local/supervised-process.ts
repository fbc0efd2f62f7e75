import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { stopChild } from '@ioa/embedded';
import { describeExit, planRestart, type RestartMode, type RestartPolicy } from './restart-policy.js';

export interface ProcessExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The process's last lines of output, oldest first. */
  lastLines: string[];
}

export interface SupervisedProcessOptions {
  /** How the process is named in the launcher's log, e.g. `chat` or `chat#2`. */
  label: string;
  command: string;
  args: string[];
  spawnOptions: SpawnOptions;
  mode: RestartMode;
  policy: RestartPolicy;
  /** One line of the process's own output. */
  onLine: (line: string) => void;
  /** One line of the supervisor's log (a death, a restart). */
  log: (line: string) => void;
  /** An exit the supervisor will not restart (mode `no`); never called for exits asked for by `stop()`. */
  onGiveUp?: (exit: ProcessExit) => void;
  /** Output lines kept for a failure report. */
  keepLines?: number;
}

/**
 * One service process under supervision: an exit nobody asked for is logged (which process, how it ended, after how
 * long) and followed by a restart with backoff (`restart-policy.ts`), until `stop()`.
 */
export class SupervisedProcess {
  private child: ChildProcess | undefined;
  private startedAt = 0;
  private attempt = 0;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly lastLines: string[] = [];
  /** Deaths survived so far (each one followed by a restart). */
  restarts = 0;

  constructor(private readonly options: SupervisedProcessOptions) {}

  /** The running process's id; undefined between a death and its restart. */
  get pid(): number | undefined {
    return this.child && this.child.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  start(): void {
    const { command, args, spawnOptions } = this.options;
    const child = spawn(command, args, spawnOptions);
    this.child = child;
    this.startedAt = Date.now();
    forwardLines(child, (line) => {
      this.lastLines.push(line);
      if (this.lastLines.length > (this.options.keepLines ?? 30)) this.lastLines.shift();
      this.options.onLine(line);
    });
    // A spawn failure (e.g. the binary vanished) arrives as 'error' and possibly no 'exit': treat it as a death.
    child.once('error', (error) => {
      if (child.exitCode === null && child.signalCode === null && child.pid === undefined) {
        this.onExit(child, 1, null, `could not be started: ${error.message}`);
      }
    });
    child.once('exit', (exitCode, signal) => this.onExit(child, exitCode, signal));
  }

  private onExit(child: ChildProcess, exitCode: number | null, signal: NodeJS.Signals | null, why?: string): void {
    if (this.stopping || child !== this.child) return;
    const { label, log, mode, policy } = this.options;
    const uptimeMs = Date.now() - this.startedAt;
    const how = why ?? `died (${describeExit(exitCode, signal)}) after ${(uptimeMs / 1000).toFixed(1)} s`;
    if (mode === 'no') {
      this.options.onGiveUp?.({ exitCode, signal, lastLines: [...this.lastLines] });
      return;
    }
    const plan = planRestart(policy, this.attempt, uptimeMs);
    this.attempt = plan.attempt;
    this.restarts += 1;
    log(`${label} ${how}; restart attempt ${plan.attempt} in ${(plan.delayMs / 1000).toFixed(2)} s`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.start();
      log(`${label} restarted (pid ${this.child?.pid ?? '?'}, attempt ${plan.attempt})`);
    }, plan.delayMs);
  }

  /** Stops the process (SIGTERM, then SIGKILL after `graceMs`) and every restart still pending. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    if (this.child) await stopChild(this.child, graceMs);
  }

  /** What the process said last (for a failure report). */
  tail(): string[] {
    return [...this.lastLines];
  }
}

/** Calls `onLine` for every complete line the child writes to stdout or stderr. */
export function forwardLines(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line.replace(/\r$/, ''));
    });
    stream?.on('end', () => {
      if (pending) onLine(pending);
      pending = '';
    });
  }
}

/** Whether a process with this id exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
