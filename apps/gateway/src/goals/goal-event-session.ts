import { isEndedGoalStatus, type GoalEventV1, type GoalStatus, type ListGoalEventsV1Response } from '@ioa/contracts';

/** Live events held for a client while the log is read; past this, they are dropped and re-read from the log. */
const MAX_PENDING_EVENTS = 1000;

export interface GoalEventSessionOptions {
  /** The last event the client already has (0 = none). */
  afterSeq: number;
  /** Keep the stream open after the goal has ended. */
  follow: boolean;
  /** The goal's status when the stream opened, read after the live tail was subscribed. */
  status: GoalStatus;
  pageSize: number;
  retryDelayMs: number;
}

/** Where the session reads the log (`ListGoalEventsV1`) and where it writes (the SSE response). */
export interface GoalEventSessionPorts {
  readPage(afterSeq: number, limit: number): Promise<ListGoalEventsV1Response>;
  send(event: GoalEventV1): void;
  /** The stream is complete: the goal has ended and every event up to its end was sent. */
  end(): void;
  warn(message: string): void;
}

/**
 * One client's position in one goal's event log: sends every event exactly once, in `seq` order, whether it came
 * from the log (`ListGoalEventsV1`) or from the live tail (`GoalEventAppendedV1`, core NATS: fast, but may arrive
 * twice, out of order, or not at all).
 *
 * The live tail is subscribed before the log is read, so nothing appended in between is missed; events are
 * de-duplicated by `seq`. A live event that leaves a gap after the last one sent means some event was missed: the
 * scheduler publishes an event only after its transaction committed, so the log already holds everything before
 * it, and the session reads the log from its position instead. One worker does all of this, so sends never
 * interleave.
 */
export class GoalEventSession {
  private lastSent: number;
  private latestStatus: GoalStatus;
  /** Highest seq seen on the live tail: the log must reach at least this far. */
  private highestSeen = 0;
  private pending: GoalEventV1[] = [];
  private readWanted = false;
  /** The log was read once more after the goal's end was sent, for events committed with it (canceled tasks…). */
  private finalReadDone = false;
  private worker: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ports: GoalEventSessionPorts,
    private readonly options: GoalEventSessionOptions,
  ) {
    this.lastSent = options.afterSeq;
    this.latestStatus = options.status;
  }

  /** The position of the client: the seq of the last event sent. */
  get position(): number {
    return this.lastSent;
  }

  /**
   * Starts sending: `firstPage` is the log page read while the request was checked (events after `afterSeq`), and
   * `live` the tail events that arrived meanwhile.
   */
  start(firstPage: ListGoalEventsV1Response, live: GoalEventV1[] = []): void {
    this.pending.push(...firstPage.items);
    for (const event of live) this.offer(event);
    // A full page: there is more in the log than one page.
    if (firstPage.items.length >= this.options.pageSize) this.readWanted = true;
    this.highestSeen = Math.max(this.highestSeen, firstPage.lastSeq);
    this.kick();
  }

  /** An event from the live tail. */
  offer(event: GoalEventV1): void {
    if (this.stopped || event.seq <= this.lastSent) return;
    this.highestSeen = Math.max(this.highestSeen, event.seq);
    if (this.pending.length >= MAX_PENDING_EVENTS) {
      // A client reading slower than the goal writes: the log holds these events, read them from there later.
      this.pending = [];
      this.requestRead();
    } else {
      this.pending.push(event);
    }
    this.kick();
  }

  /** Reads the log again (the heartbeat's safety net against a live event lost in transit). */
  refresh(): void {
    this.requestRead();
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    this.pending = [];
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private requestRead(): void {
    // While a retry is scheduled, reading again at once would only fail again.
    if (this.retryTimer === undefined) this.readWanted = true;
  }

  private scheduleRead(): void {
    if (this.retryTimer !== undefined || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.readWanted = true;
      this.kick();
    }, this.options.retryDelayMs);
  }

  private kick(): void {
    if (this.worker !== undefined || this.stopped) return;
    this.worker = this.work().finally(() => {
      this.worker = undefined;
      // Work that arrived while the worker was finishing.
      if (this.hasWork()) this.kick();
    });
  }

  private hasWork(): boolean {
    return !this.stopped && (this.readWanted || this.pending.length > 0);
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      if (this.pending.length > 0) {
        this.sendPending();
        continue;
      }
      if (this.readWanted) {
        this.readWanted = false;
        await this.readLog();
        continue;
      }
      if (this.shouldEnd()) {
        if (!this.finalReadDone) {
          this.finalReadDone = true;
          this.readWanted = true;
          continue;
        }
        this.stopped = true;
        this.ports.end();
      }
      return;
    }
  }

  /** Sends the contiguous run of pending events; a gap asks for a read of the log. */
  private sendPending(): void {
    const batch = this.pending.sort((a, b) => a.seq - b.seq);
    this.pending = [];
    for (const event of batch) {
      if (event.seq <= this.lastSent) continue; // a duplicate
      if (event.seq !== this.lastSent + 1) {
        // Missed events: the log has them (and the rest of this batch).
        this.requestRead();
        return;
      }
      this.send(event);
    }
  }

  private async readLog(): Promise<void> {
    try {
      for (;;) {
        const page = await this.ports.readPage(this.lastSent, this.options.pageSize);
        if (this.stopped) return;
        this.highestSeen = Math.max(this.highestSeen, page.lastSeq);
        for (const event of page.items) {
          if (event.seq === this.lastSent + 1) this.send(event);
        }
        if (page.items.length < this.options.pageSize || this.lastSent >= page.lastSeq) break;
      }
    } catch (error) {
      this.ports.warn(`Reading the goal's event log failed, retrying: ${(error as Error)?.message ?? String(error)}`);
      this.scheduleRead();
      return;
    }
    // The live tail has shown a later event than the log holds (a database replica behind): read again shortly.
    if (this.highestSeen > this.lastSent) this.scheduleRead();
  }

  private send(event: GoalEventV1): void {
    this.lastSent = event.seq;
    if (event.type === 'status' && typeof event.data.status === 'string') {
      this.latestStatus = event.data.status as GoalStatus;
      // Re-opened by a follow-up: its next end gets its own final read.
      if (!isEndedGoalStatus(this.latestStatus)) this.finalReadDone = false;
    }
    this.ports.send(event);
  }

  private shouldEnd(): boolean {
    return !this.options.follow && isEndedGoalStatus(this.latestStatus) && this.retryTimer === undefined;
  }
}
