import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { GoalEventType, GoalEventV1, GoalStatus, ListGoalEventsV1Response } from '@ioa/contracts';
import { expectEventually } from '@ioa/testing';
import { GoalEventSession, type GoalEventSessionOptions } from './goal-event-session.js';

/**
 * The session's ordering rules against an in-memory event log: what the scheduler's log would answer, with the live
 * tail's failure modes (duplicates, reordering, losses) played by hand.
 */
class InMemoryLog {
  readonly goalId = randomUUID();
  readonly events: GoalEventV1[] = [];
  reads = 0;
  failNextReads = 0;

  append(type: GoalEventType, data: Record<string, unknown> = {}): GoalEventV1 {
    const event = { goalId: this.goalId, seq: this.events.length + 1, type, data, at: new Date().toISOString() };
    this.events.push(event);
    return event;
  }

  status(status: GoalStatus): GoalEventV1 {
    return this.append('status', { status });
  }

  read = async (afterSeq: number, limit: number): Promise<ListGoalEventsV1Response> => {
    this.reads += 1;
    await Promise.resolve();
    if (this.failNextReads > 0) {
      this.failNextReads -= 1;
      throw new Error('No service is answering ioa.scheduler.goal.events.list.v1');
    }
    return {
      items: this.events.filter((event) => event.seq > afterSeq).slice(0, limit),
      lastSeq: this.events.length,
    };
  };
}

function openSession(log: InMemoryLog, overrides: Partial<GoalEventSessionOptions> = {}) {
  const sent: number[] = [];
  const warnings: string[] = [];
  let ended = false;
  const session = new GoalEventSession(
    {
      readPage: log.read,
      send: (event) => sent.push(event.seq),
      end: () => {
        ended = true;
      },
      warn: (message) => warnings.push(message),
    },
    { afterSeq: 0, follow: false, status: 'working', pageSize: 3, retryDelayMs: 20, ...overrides },
  );
  return { session, sent, warnings, ended: () => ended };
}

async function firstPage(log: InMemoryLog, afterSeq: number, pageSize = 3) {
  return log.read(afterSeq, pageSize);
}

describe('a goal event session', () => {
  it('sends the log from the start, page by page, then live events, each once and in order', async () => {
    const log = new InMemoryLog();
    log.status('submitted');
    log.status('forming_team');
    log.append('team');
    log.status('working');
    log.append('message');
    const { session, sent } = openSession(log);
    session.start(await firstPage(log, 0));
    await expectEventually(() => sent.length === 5);
    session.offer(log.events[3]); // a duplicate of an event already sent from the log
    const live = log.append('task');
    session.offer(live);
    session.offer(live);
    await expectEventually(() => sent.length === 6);
    expect(sent).toEqual([1, 2, 3, 4, 5, 6]);
    session.stop();
  });

  it('resumes after Last-Event-ID without repeating anything', async () => {
    const log = new InMemoryLog();
    for (let index = 0; index < 7; index += 1) log.append('message');
    const { session, sent } = openSession(log, { afterSeq: 4 });
    session.start(await firstPage(log, 4));
    await expectEventually(() => sent.length === 3);
    expect(sent).toEqual([5, 6, 7]);
    session.stop();
  });

  it('puts live events that arrive out of order back in order', async () => {
    const log = new InMemoryLog();
    log.status('working');
    const { session, sent } = openSession(log);
    session.start(await firstPage(log, 0));
    const [second, third, fourth] = [log.append('message'), log.append('message'), log.append('task')];
    session.offer(fourth);
    session.offer(second);
    session.offer(third);
    await expectEventually(() => sent.length === 4);
    expect(sent).toEqual([1, 2, 3, 4]);
    session.stop();
  });

  it('reads a live event that was lost from the log when the next one shows the gap', async () => {
    const log = new InMemoryLog();
    log.status('working');
    const { session, sent } = openSession(log);
    session.start(await firstPage(log, 0));
    await expectEventually(() => sent.length === 1);
    log.append('message'); // published, but never reaches this gateway
    session.offer(log.append('message'));
    await expectEventually(() => sent.length === 3);
    expect(sent).toEqual([1, 2, 3]);
    session.stop();
  });

  it('finds a lost last event on the next refresh (heartbeat)', async () => {
    const log = new InMemoryLog();
    log.status('working');
    const { session, sent } = openSession(log);
    session.start(await firstPage(log, 0));
    await expectEventually(() => sent.length === 1);
    log.append('message'); // lost, and nothing follows it
    session.refresh();
    await expectEventually(() => sent.length === 2);
    session.stop();
  });

  it('ends after the goal has ended, including the events committed with its end', async () => {
    const log = new InMemoryLog();
    log.status('working');
    const { session, sent, ended } = openSession(log);
    session.start(await firstPage(log, 0));
    const completed = log.status('completed');
    log.append('task', { state: 'canceled' }); // written in the same transaction; its live copy is late
    session.offer(completed);
    await expectEventually(ended);
    expect(sent).toEqual([1, 2, 3]);
    session.offer(log.append('group'));
    expect(sent).toEqual([1, 2, 3]);
  });

  it('sends the whole log of a goal that has already ended, then ends', async () => {
    const log = new InMemoryLog();
    log.status('working');
    log.append('message');
    log.status('canceled');
    const { session, sent, ended } = openSession(log, { status: 'canceled' });
    session.start(await firstPage(log, 0));
    await expectEventually(ended);
    expect(sent).toEqual([1, 2, 3]);
  });

  it('stays open after the end with follow, and sees the goal re-open', async () => {
    const log = new InMemoryLog();
    log.status('completed');
    const { session, sent, ended } = openSession(log, { follow: true, status: 'completed' });
    session.start(await firstPage(log, 0));
    await expectEventually(() => sent.length === 1);
    session.offer(log.append('message', { type: 'user' }));
    session.offer(log.status('working'));
    await expectEventually(() => sent.length === 3);
    expect(ended()).toBe(false);
    session.stop();
  });

  it('keeps trying when the log cannot be read, and catches up once it can', async () => {
    const log = new InMemoryLog();
    log.status('working');
    const { session, sent, warnings } = openSession(log);
    session.start(await firstPage(log, 0));
    await expectEventually(() => sent.length === 1);
    log.append('message');
    log.failNextReads = 2;
    session.offer(log.append('message'));
    await expectEventually(() => sent.length === 3, { timeoutMs: 5000 });
    expect(sent).toEqual([1, 2, 3]);
    expect(warnings).toHaveLength(2);
    session.stop();
  });

  it('sends nothing after it was stopped (the client left)', async () => {
    const log = new InMemoryLog();
    log.status('working');
    const { session, sent } = openSession(log);
    session.start(await firstPage(log, 0));
    await expectEventually(() => sent.length === 1);
    session.stop();
    session.offer(log.append('message'));
    session.refresh();
    const readsBefore = log.reads;
    await Promise.resolve();
    expect(sent).toEqual([1]);
    expect(log.reads).toBe(readsBefore);
  });
});
