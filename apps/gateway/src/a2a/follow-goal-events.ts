import type { MessageEvent } from '@nestjs/common';
import type { Observable, Subscription } from 'rxjs';
import type { GoalEventV1 } from '@ioa/contracts';

/**
 * Hands each event of a goal event stream (`GoalEventStreams.open`) to `onEvent` until the stream completes or
 * `signal` is aborted (by `onEvent` itself, when it has seen enough). The stream may deliver its first events, and
 * even be aborted, while `subscribe` is still running: the abort listener is in place before it.
 */
export function followGoalEvents(
  stream: Observable<MessageEvent>,
  signal: AbortSignal,
  onEvent: (event: GoalEventV1) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Not a `const`: `finish` may run before `subscribe` returns.
    const current: { subscription?: Subscription } = {};
    const finish = () => {
      current.subscription?.unsubscribe();
      resolve();
    };
    signal.addEventListener('abort', finish, { once: true });
    current.subscription = stream.subscribe({
      // Heartbeats are comments, without data.
      next: (message) => {
        if (message.data !== undefined && !signal.aborted) onEvent(message.data as GoalEventV1);
      },
      error: (error: unknown) => {
        signal.removeEventListener('abort', finish);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
      complete: () => {
        signal.removeEventListener('abort', finish);
        resolve();
      },
    });
    if (signal.aborted) current.subscription.unsubscribe();
  });
}
