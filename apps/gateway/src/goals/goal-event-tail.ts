import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { ContractError, GoalEventAppendedV1, GoalEventAppendedV1Event, type GoalEventV1 } from '@ioa/contracts';
import { natsConfig } from '@ioa/config';
import { decodeJson, NATS_CONNECTION, validatePayload } from '@ioa/messaging';

export type GoalEventListener = (event: GoalEventV1) => void;

/**
 * The live tail of goals' event logs for this gateway: one core NATS subscription to `GoalEventAppendedV1` (not
 * one per SSE client), fanned out by goal id to the streams that watch it. The subject is not per goal, so every
 * gateway replica sees every goal's events; the subscription exists only while some client is watching.
 */
@Injectable()
export class GoalEventTail implements OnModuleDestroy {
  private readonly logger = new Logger(GoalEventTail.name);
  private readonly listeners = new Map<string, Set<GoalEventListener>>();
  private subscription: Subscription | undefined;
  private registered: Promise<void> | undefined;
  /** Validation is asynchronous; chaining it keeps events in the order the broker delivered them. */
  private delivery: Promise<void> = Promise.resolve();

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(natsConfig.KEY) private readonly nats: ConfigType<typeof natsConfig>,
  ) {}

  /**
   * Calls `listener` with every event appended to `goalId`'s log from now on. Resolves once the broker has the
   * subscription, so any event published after that reaches the listener: a reader can then page the log without
   * a window in which an event is neither in its page nor on the tail. Returns the function that stops listening.
   */
  async listen(goalId: string, listener: GoalEventListener): Promise<() => void> {
    let listeners = this.listeners.get(goalId);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(goalId, listeners);
    }
    listeners.add(listener);
    let removed = false;
    const remove = () => {
      if (removed) return;
      removed = true;
      const current = this.listeners.get(goalId);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(goalId);
      if (this.listeners.size === 0) this.unsubscribe();
    };
    try {
      await this.subscribed();
    } catch (error) {
      remove();
      throw error;
    }
    return remove;
  }

  /** Goals watched right now (for tests and diagnostics). */
  get watchedGoals(): number {
    return this.listeners.size;
  }

  private subscribed(): Promise<void> {
    if (this.subscription && this.registered) return this.registered;
    const subscription = this.connection.subscribe(GoalEventAppendedV1.subject, {
      callback: (error, message) => {
        if (!error) this.receive(message);
      },
    });
    this.subscription = subscription;
    // The broker has processed our SUB once it answers the PING that `flush` sends after it.
    const registered = withTimeout(this.connection.flush(), this.nats.requestTimeoutMs).catch((error: unknown) => {
      if (this.subscription === subscription) this.unsubscribe();
      throw new ContractError('UNAVAILABLE', `Cannot follow goal events: NATS did not confirm the subscription`, {
        subject: GoalEventAppendedV1.subject,
        reason: (error as Error)?.message ?? String(error),
      });
    });
    this.registered = registered;
    return registered;
  }

  private unsubscribe(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.registered = undefined;
  }

  private receive(message: Msg): void {
    const body = decodeJson(message.data);
    // Most events concern goals nobody here watches: skip them before paying for validation.
    const goalId = (body as { event?: { goalId?: unknown } } | null)?.event?.goalId;
    if (typeof goalId !== 'string' || !this.listeners.has(goalId)) return;
    this.delivery = this.delivery.then(async () => {
      let payload: GoalEventAppendedV1Event;
      try {
        payload = await validatePayload(GoalEventAppendedV1Event, body);
      } catch (error) {
        this.logger.warn(`Ignoring an invalid ${GoalEventAppendedV1.subject}: ${(error as Error)?.message}`);
        return;
      }
      for (const listener of [...(this.listeners.get(goalId) ?? [])]) {
        try {
          listener(payload.event);
        } catch (error) {
          this.logger.error(`A goal event listener failed: ${(error as Error)?.message}`);
        }
      }
    });
  }

  onModuleDestroy(): void {
    this.listeners.clear();
    this.unsubscribe();
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
