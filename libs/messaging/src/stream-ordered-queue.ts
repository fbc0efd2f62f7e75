interface QueuedDelivery {
  stream: string;
  sequence: number;
  task: () => Promise<void>;
  settle: { resolve: () => void; reject: (error: unknown) => void };
}

/**
 * Runs one subscription's deliveries one at a time. Each consumer waits for its delivery to finish before it hands
 * over the next, so at most one per consumer waits here; of those, the lowest stream sequence of the oldest one's
 * stream goes first. That puts events of different subjects back in stream order whenever they queue up (a burst
 * published together, a slow handler), which per-subject consumers alone would not.
 */
export class StreamOrderedQueue {
  private readonly waiting: QueuedDelivery[] = [];
  private running = false;

  run(stream: string, sequence: number, task: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ stream, sequence, task, settle: { resolve, reject } });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      const next = this.takeNext();
      try {
        await next.task();
        next.settle.resolve();
      } catch (error) {
        next.settle.reject(error);
      }
    }
    this.running = false;
  }

  private takeNext(): QueuedDelivery {
    const stream = this.waiting[0].stream;
    let index = 0;
    this.waiting.forEach((candidate, position) => {
      if (candidate.stream === stream && candidate.sequence < this.waiting[index].sequence) index = position;
    });
    return this.waiting.splice(index, 1)[0];
  }
}
