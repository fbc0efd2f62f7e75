import { StreamOrderedQueue } from './stream-ordered-queue.js';

/** A delivery that only records that it ran. */
function record(log: string[], name: string): Promise<void> {
  log.push(name);
  return Promise.resolve();
}

/** A task that records its name when it runs and finishes when the test says so. */
function gatedTask(log: string[], name: string) {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  return {
    task: async () => {
      log.push(name);
      await finished;
    },
    finish: () => finish(),
  };
}

describe('a subscription queue that puts deliveries of several consumers back in stream order', () => {
  it('runs one delivery at a time', async () => {
    const queue = new StreamOrderedQueue();
    const log: string[] = [];
    const first = gatedTask(log, 'first');
    const done = [queue.run('S', 1, first.task), queue.run('S', 2, () => record(log, 'second'))];
    await Promise.resolve();
    expect(log).toEqual(['first']);
    first.finish();
    await Promise.all(done);
    expect(log).toEqual(['first', 'second']);
  });

  it('takes the lowest sequence of the stream among the waiting deliveries, whatever their arrival order', async () => {
    const queue = new StreamOrderedQueue();
    const log: string[] = [];
    const busy = gatedTask(log, 'busy');
    const done = [
      queue.run('CHAT', 10, busy.task),
      queue.run('CHAT', 14, () => record(log, 'state-changed#14')),
      queue.run('CHAT', 12, () => record(log, 'message-posted#12')),
      queue.run('CHAT', 13, () => record(log, 'tasks-assigned#13')),
    ];
    busy.finish();
    await Promise.all(done);
    expect(log).toEqual(['busy', 'message-posted#12', 'tasks-assigned#13', 'state-changed#14']);
  });

  it('keeps arrival order between streams, whose sequences are not comparable', async () => {
    const queue = new StreamOrderedQueue();
    const log: string[] = [];
    const busy = gatedTask(log, 'busy');
    const done = [
      queue.run('CHAT', 1, busy.task),
      queue.run('REGISTRY', 900, () => record(log, 'registry#900')),
      queue.run('CHAT', 5, () => record(log, 'chat#5')),
    ];
    busy.finish();
    await Promise.all(done);
    expect(log).toEqual(['busy', 'registry#900', 'chat#5']);
  });

  it('passes a failing delivery’s error to its caller and goes on with the next', async () => {
    const queue = new StreamOrderedQueue();
    const failed = queue.run('S', 1, () => Promise.reject(new Error('handler failed')));
    const next = queue.run('S', 2, () => Promise.resolve());
    await expect(failed).rejects.toThrow('handler failed');
    await expect(next).resolves.toBeUndefined();
  });
});
