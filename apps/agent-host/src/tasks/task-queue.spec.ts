import { describe, expect, it } from '@jest/globals';
import { expectEventually } from '@ioa/testing';
import { TaskQueue } from './task-queue.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('TaskQueue', () => {
  it('runs at most `concurrency` jobs and starts queued ones as slots free up, in order', async () => {
    const queue = new TaskQueue(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    gates.forEach((gate, index) =>
      queue.push(`job-${index}`, async () => {
        started.push(index);
        await gate.promise;
      }),
    );
    expect(started).toEqual([0, 1]);
    expect(queue.size).toEqual({ running: 2, waiting: 1 });
    gates[1].resolve();
    await expectEventually(() => started.length === 3);
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    gates[2].resolve();
    await expectEventually(() => queue.size.running === 0);
  });

  it('removes a job that has not started, and keeps going when a job fails', async () => {
    const queue = new TaskQueue(1);
    const gate = deferred();
    const ran: string[] = [];
    queue.push('first', async () => {
      await gate.promise;
      throw new Error('boom');
    });
    queue.push('second', () => Promise.resolve(void ran.push('second')));
    queue.push('third', () => Promise.resolve(void ran.push('third')));
    expect(queue.remove('second')).toBe(true);
    expect(queue.remove('first')).toBe(false);
    gate.resolve();
    await expectEventually(() => ran.length === 1);
    expect(ran).toEqual(['third']);
  });
});
