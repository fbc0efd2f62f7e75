/**
 * Runs at most `concurrency` jobs at a time and queues the rest, first in first out. A queued job can be removed
 * before it starts. Used per hosted agent (so one slow agent never blocks another) and for the communicator's
 * turns (so a burst of groups never floods the model).
 */
export class TaskQueue {
  private running = 0;
  private readonly waiting: Array<{ key: string; start: () => Promise<void> }> = [];

  constructor(private readonly concurrency: number) {}

  /** Queues `job`; it starts as soon as a slot is free. Errors are the job's business (it must catch them). */
  push(key: string, job: () => Promise<void>): void {
    this.waiting.push({ key, start: job });
    this.next();
  }

  /** Removes a job that has not started yet; false when it already started (or was never queued). */
  remove(key: string): boolean {
    const index = this.waiting.findIndex((entry) => entry.key === key);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const entry = this.waiting.shift() as (typeof this.waiting)[number];
      this.running += 1;
      void entry
        .start()
        .catch(() => undefined)
        .finally(() => {
          this.running -= 1;
          this.next();
        });
    }
  }
}
