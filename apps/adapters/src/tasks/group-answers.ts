import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { MessagePostedV1, MessagePostedV1Event, USER_SPEAKER } from '@ioa/contracts';
import { decodeJson, NATS_CONNECTION, validatePayload } from '@ioa/messaging';

interface Waiter {
  groupId: string;
  agentId: string;
  askedAt: number;
  resolve(answer: string): void;
}

/**
 * Answers to an adapted agent's question (A2A `input-required`). The question reaches the group as chat's notice
 * of the task's `input-required` report; the answer is the first message posted in that group after it by a
 * person or by another member. One core-NATS subscription serves every waiting task of this replica; a missed
 * message (while reconnecting) only means the task waits on, up to its deadline.
 */
@Injectable()
export class GroupAnswers implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(GroupAnswers.name);
  private readonly waiters = new Set<Waiter>();
  private subscription?: Subscription;

  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {}

  onModuleInit(): void {
    this.subscription = this.connection.subscribe(MessagePostedV1.subject, {
      callback: (error, message) => {
        if (error || this.waiters.size === 0) return;
        void this.onMessagePosted(decodeJson(message.data));
      },
    });
  }

  /** Resolves with the next answer posted in the group after now; rejects when `signal` aborts. */
  waitForAnswer(groupId: string, agentId: string, signal: AbortSignal): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const waiter: Waiter = {
        groupId,
        agentId,
        // A message written in the same millisecond as the question still counts as after it.
        askedAt: Date.now() - 1,
        resolve: (answer) => {
          this.waiters.delete(waiter);
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      const onAbort = () => {
        this.waiters.delete(waiter);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  private async onMessagePosted(body: unknown): Promise<void> {
    let event: MessagePostedV1Event;
    try {
      event = await validatePayload(MessagePostedV1Event, body);
    } catch (error) {
      this.logger.warn(`Ignoring an invalid message event: ${(error as Error).message}`);
      return;
    }
    const { message } = event;
    const answered =
      message.type === 'user' ||
      (message.type === 'discussion' && message.senderId !== USER_SPEAKER && message.senderId !== 'system');
    if (!answered) return;
    for (const waiter of this.waiters) {
      if (waiter.groupId !== message.groupId || message.senderId === waiter.agentId) continue;
      if (Date.parse(message.createdAt) < waiter.askedAt) continue;
      waiter.resolve(message.content);
    }
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
