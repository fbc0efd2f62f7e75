import { isTerminalTaskState, type ChatMessageV1, type GroupTaskV1 } from '@ioa/contracts';

/**
 * What a turn grant carries is bounded twice: by message count (config) and by characters, so a few very long
 * messages (results, conclusions) cannot blow up the speaker's prompt or the event past NATS's payload limit.
 */
export const TRUNCATION_MARK = '\n…[truncated; ListMessagesV1 has the full text]';
/** A partly fitting older message is kept only if at least this much of it fits. */
const MIN_PARTIAL_CHARS = 400;
/** Tasks a grant lists at most: every unfinished one first, then the most recent finished ones. */
export const GRANT_LEDGER_MAX = 40;

/** The most recent messages whose contents fit in `maxChars`, oldest first (the newest one is always kept). */
export function boundWindow(messages: ChatMessageV1[], maxChars: number): ChatMessageV1[] {
  const kept: ChatMessageV1[] = [];
  let remaining = maxChars;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.content.length <= remaining) {
      kept.push(message);
      remaining -= message.content.length;
      continue;
    }
    if (kept.length === 0 || remaining >= MIN_PARTIAL_CHARS) {
      const room = Math.max(remaining - TRUNCATION_MARK.length, 0);
      kept.push({ ...message, content: message.content.slice(0, room) + TRUNCATION_MARK });
    }
    break;
  }
  return kept.reverse();
}

/** The ledger as a grant shows it: all of it when small, else the unfinished tasks and the latest finished ones. */
export function boundLedger(tasks: GroupTaskV1[], max = GRANT_LEDGER_MAX): GroupTaskV1[] {
  if (tasks.length <= max) return tasks;
  const unfinished = tasks.filter((task) => !isTerminalTaskState(task.state)).slice(-max);
  const room = max - unfinished.length;
  const finished = room > 0 ? tasks.filter((task) => isTerminalTaskState(task.state)).slice(-room) : [];
  const keep = new Set([...unfinished, ...finished]);
  return tasks.filter((task) => keep.has(task));
}
