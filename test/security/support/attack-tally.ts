import { expect } from '@jest/globals';

export type Outcome = 'refused' | 'allowed';

/**
 * The count of a matrix suite: each refused attack and each allowed action, filed under the test that tried it
 * (a test names a principal and what it tries), so a run prints attacks by principal and action, not just a total.
 */
export class AttackTally {
  private readonly rows = new Map<string, Record<Outcome, number>>();

  constructor(private readonly suite: string) {}

  count(outcome: Outcome, times = 1): void {
    const test = expect.getState().currentTestName?.trim() || 'setup';
    const row = this.rows.get(test) ?? { refused: 0, allowed: 0 };
    row[outcome] += times;
    this.rows.set(test, row);
  }

  get refused(): number {
    return this.total('refused');
  }

  get allowed(): number {
    return this.total('allowed');
  }

  /** The totals, then one line per test: what `afterAll` prints for the closing note. */
  report(): string {
    const lines = [...this.rows].map(([test, row]) => `  ${row.refused} refused, ${row.allowed} allowed: ${test}`);
    return [`${this.suite}: ${this.refused} attacks refused, ${this.allowed} allowed actions ok`, ...lines].join('\n');
  }

  private total(outcome: Outcome): number {
    return [...this.rows.values()].reduce((sum, row) => sum + row[outcome], 0);
  }
}
