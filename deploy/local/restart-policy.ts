/**
 * When the local launcher restarts a service that died: Docker's `restart: unless-stopped`, spelled out. Every
 * exit the launcher did not ask for is followed by a restart, after a delay that doubles with each crash in a row
 * (so a service that cannot start does not spin the CPU), capped, and reset once a process has stayed up long
 * enough to count as healthy. Only stopping the stack stops the restarts. Pure, so it is unit-tested.
 */
export interface RestartPolicy {
  /** Delay before the first restart of a crash series. */
  initialDelayMs: number;
  /** The doubling stops here. */
  maxDelayMs: number;
  /** A process that ran at least this long before it died starts a new crash series (the delay resets). */
  stableAfterMs: number;
}

/** Docker's defaults are 100 ms doubling, reset after 10 s up; a Node service needs a few seconds to boot anyway. */
export const UNLESS_STOPPED: RestartPolicy = { initialDelayMs: 250, maxDelayMs: 30_000, stableAfterMs: 10_000 };

export interface RestartPlan {
  /** 1 for the first crash of a series, then 2, 3… */
  attempt: number;
  delayMs: number;
}

/**
 * The restart after a process died.
 * @param previousAttempt the attempt number of the restart that started the process that died (0 for the first
 *   start)
 * @param uptimeMs how long that process ran
 */
export function planRestart(policy: RestartPolicy, previousAttempt: number, uptimeMs: number): RestartPlan {
  const attempt = uptimeMs >= policy.stableAfterMs ? 1 : previousAttempt + 1;
  // 2 ** 30 already exceeds any sensible cap; bounding the exponent keeps the arithmetic finite.
  const delayMs = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt - 1, 30));
  return { attempt, delayMs };
}

/** `IOA_RESTART`: `unless-stopped` (the default) or `no` (a service that dies stops the stack, as before). */
export type RestartMode = 'unless-stopped' | 'no';

export function parseRestartMode(value: string | undefined): RestartMode {
  const mode = (value ?? '').trim() || 'unless-stopped';
  if (mode === 'unless-stopped' || mode === 'no') return mode;
  throw new Error(`IOA_RESTART must be "unless-stopped" or "no", got "${value}"`);
}

/** How an exit reads in the log: `exit code 1` or `signal SIGKILL`. */
export function describeExit(exitCode: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit code ${exitCode}`;
}
