import 'reflect-metadata';
import { ContractError } from '@ioa/contracts';
import { decideReport } from './task-report.rules.js';

function aTask(overrides: Partial<Parameters<typeof decideReport>[0]> = {}): Parameters<typeof decideReport>[0] {
  return {
    id: 'd2b1e5a8-7a53-4e9e-9d45-2f3c1b0a9e11',
    state: 'submitted',
    result: null,
    statusMessage: null,
    ...overrides,
  };
}

function refusal(run: () => unknown): ContractError {
  try {
    run();
  } catch (error) {
    if (error instanceof ContractError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('what a task report does', () => {
  it('starts a submitted task with a progress note', () => {
    expect(decideReport(aTask(), { state: 'working', content: 'on it' })).toEqual({
      kind: 'apply',
      patch: { state: 'working', statusMessage: 'on it' },
    });
  });

  it('accepts a new progress note on a working task, and ignores the same report twice', () => {
    const task = aTask({ state: 'working', statusMessage: 'half way' });
    expect(decideReport(task, { state: 'working', content: 'almost' })).toMatchObject({ kind: 'apply' });
    expect(decideReport(task, { state: 'working', content: 'half way' })).toEqual({ kind: 'unchanged' });
    expect(decideReport(task, { state: 'working' })).toEqual({ kind: 'unchanged' });
  });

  it('completes with the content as the result (empty when there is none)', () => {
    expect(decideReport(aTask({ state: 'working' }), { state: 'completed', content: '42' })).toEqual({
      kind: 'apply',
      patch: { state: 'completed', result: '42' },
    });
    expect(decideReport(aTask(), { state: 'completed' })).toEqual({
      kind: 'apply',
      patch: { state: 'completed', result: '' },
    });
  });

  it('fails or rejects with the reason, and says so when none was given', () => {
    expect(decideReport(aTask(), { state: 'rejected', content: 'not my skill' })).toEqual({
      kind: 'apply',
      patch: { state: 'rejected', statusMessage: 'not my skill' },
    });
    expect(decideReport(aTask(), { state: 'failed' })).toMatchObject({
      patch: { statusMessage: 'The assignee reported failed without a reason' },
    });
  });

  it('accepts the same terminal report again without change (a retried report)', () => {
    expect(decideReport(aTask({ state: 'completed', result: '42' }), { state: 'completed', content: '43' })).toEqual({
      kind: 'unchanged',
    });
  });

  it('refuses a different report on a finished task with INVALID_STATE', () => {
    const error = refusal(() => decideReport(aTask({ state: 'completed' }), { state: 'failed', content: 'oops' }));
    expect(error.code).toBe('INVALID_STATE');
    expect(error.message).toContain('already completed');
  });

  it('refuses any report on a canceled task with INVALID_STATE telling the agent to stop', () => {
    for (const state of ['working', 'completed', 'failed'] as const) {
      const error = refusal(() =>
        decideReport(aTask({ state: 'canceled', statusMessage: 'goal canceled' }), { state }),
      );
      expect(error.code).toBe('INVALID_STATE');
      expect(error.message).toContain('stop working on it');
    }
  });
});
