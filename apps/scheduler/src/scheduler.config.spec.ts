import 'reflect-metadata';
import { schedulerConfig } from './scheduler.config.js';

describe('scheduler configuration', () => {
  const saved = { ...process.env };

  afterEach(() => {
    for (const key of Object.keys(process.env)) if (key.startsWith('SCHEDULER_')) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('has defaults for everything', () => {
    expect(schedulerConfig()).toMatchObject({
      taskDeadlineSeconds: 120,
      dispatchAttempts: 3,
      reassignOnOffline: false,
      formationAttempts: 3,
    });
  });

  it('reads the environment, treating empty values as unset', () => {
    process.env.SCHEDULER_TASK_DEADLINE_SECONDS = '30';
    process.env.SCHEDULER_REASSIGN_ON_OFFLINE = 'true';
    process.env.SCHEDULER_DISPATCH_ATTEMPTS = '';
    expect(schedulerConfig()).toMatchObject({ taskDeadlineSeconds: 30, reassignOnOffline: true, dispatchAttempts: 3 });
  });

  it('refuses a malformed value at boot, naming it', () => {
    process.env.SCHEDULER_SWEEP_INTERVAL_MS = 'often';
    expect(() => schedulerConfig()).toThrow(/SCHEDULER_SWEEP_INTERVAL_MS/);
    process.env.SCHEDULER_SWEEP_INTERVAL_MS = '100';
    process.env.SCHEDULER_REASSIGN_ON_OFFLINE = 'yes';
    expect(() => schedulerConfig()).toThrow(/SCHEDULER_REASSIGN_ON_OFFLINE/);
  });
});
