import type { NatsConnection, PermissionViolationError } from '@nats-io/transport-node';

/** What the broker did with an attempt: a permission violation for that very subject, or nothing (allowed). */
export type ProbeOutcome = 'refused' | 'allowed';

/**
 * Watches one connection's status for the broker's "Permissions Violation" errors, so a test can ask whether a
 * given publish or subscribe was refused. The broker answers in order, so after a flush (PING/PONG) every error
 * caused by what was sent before has arrived.
 */
export class NatsPermissionProbe {
  private readonly violations: PermissionViolationError[] = [];
  private readonly watching: Promise<void>;

  constructor(private readonly connection: NatsConnection) {
    this.watching = (async () => {
      for await (const status of connection.status()) {
        // By name, not instanceof: under jest the client's error classes can come from a second module instance.
        if (status.type === 'error' && status.error.name === 'PermissionViolationError') {
          this.violations.push(status.error as PermissionViolationError);
        }
      }
    })();
  }

  /** Publishes `data` on `subject` and reports whether the broker refused it. */
  async publish(subject: string, data: string | Uint8Array = '{}', reply?: string): Promise<ProbeOutcome> {
    const before = this.violations.length;
    this.connection.publish(subject, data, reply ? { reply } : undefined);
    await this.settled();
    return this.refusedSince(before, 'publish', subject);
  }

  /** Subscribes (in `queue` if given) and reports whether the broker refused it; the subscription is removed. */
  async subscribe(subject: string, queue?: string): Promise<ProbeOutcome> {
    const before = this.violations.length;
    const subscription = this.connection.subscribe(subject, queue ? { queue } : {});
    await this.settled();
    const outcome = this.refusedSince(before, 'subscription', subject);
    if (!subscription.isClosed()) subscription.unsubscribe();
    return outcome;
  }

  /**
   * Waits for the broker to have answered everything sent so far (flush), then lets the status loop above take the
   * errors that arrived in the same read (it runs on a later turn of the event loop).
   */
  private async settled(): Promise<void> {
    await this.connection.flush();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  private refusedSince(before: number, operation: 'publish' | 'subscription', subject: string): ProbeOutcome {
    const refused = this.violations
      .slice(before)
      .some((violation) => violation.operation === operation && violation.subject === subject);
    return refused ? 'refused' : 'allowed';
  }
}
