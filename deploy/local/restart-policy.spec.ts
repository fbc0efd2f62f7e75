import { describe, expect, it } from '@jest/globals';
import { describeExit, parseRestartMode, planRestart, UNLESS_STOPPED, type RestartPolicy } from './restart-policy.js';

const policy: RestartPolicy = { initialDelayMs: 100, maxDelayMs: 1000, stableAfterMs: 10_000 };

describe('the restart policy (unless-stopped)', () => {
  it('restarts the first crash after the initial delay', () => {
    expect(planRestart(policy, 0, 500)).toEqual({ attempt: 1, delayMs: 100 });
  });

  it('doubles the delay for each crash in a row, up to the cap', () => {
    const delays: number[] = [];
    let attempt = 0;
    for (let crash = 0; crash < 7; crash += 1) {
      const plan = planRestart(policy, attempt, 200);
      delays.push(plan.delayMs);
      attempt = plan.attempt;
    }
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
    expect(attempt).toBe(7);
  });

  it('starts a new series once a process stayed up long enough to count as healthy', () => {
    expect(planRestart(policy, 5, 9_999)).toEqual({ attempt: 6, delayMs: 1000 });
    expect(planRestart(policy, 5, 10_000)).toEqual({ attempt: 1, delayMs: 100 });
  });

  it('stays finite after very many crashes', () => {
    expect(planRestart(UNLESS_STOPPED, 10_000, 0)).toEqual({ attempt: 10_001, delayMs: UNLESS_STOPPED.maxDelayMs });
  });

  it('reads IOA_RESTART, defaulting to unless-stopped and refusing anything else', () => {
    expect(parseRestartMode(undefined)).toBe('unless-stopped');
    expect(parseRestartMode(' ')).toBe('unless-stopped');
    expect(parseRestartMode('no')).toBe('no');
    expect(() => parseRestartMode('always')).toThrow('IOA_RESTART must be "unless-stopped" or "no", got "always"');
  });

  it('describes an exit by its signal, else its code', () => {
    expect(describeExit(null, 'SIGKILL')).toBe('signal SIGKILL');
    expect(describeExit(1, null)).toBe('exit code 1');
  });
});
