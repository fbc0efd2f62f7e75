import 'reflect-metadata';
import type { ChatMessageV1, GroupTaskV1, TaskState } from '@ioa/contracts';
import { boundLedger, boundWindow, TRUNCATION_MARK } from './turn-window.js';

function newMessage(seq: number, length: number): ChatMessageV1 {
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    groupId: '10000000-0000-4000-8000-000000000001',
    seq,
    type: 'discussion',
    senderId: 'system',
    senderName: 'system',
    content: 'x'.repeat(length),
    turn: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

function newTask(index: number, state: TaskState): GroupTaskV1 {
  return {
    taskId: `30000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    assigneeId: '00000000-0000-4000-8000-00000000000b',
    assigneeName: 'bob',
    assignerId: '00000000-0000-4000-8000-00000000000a',
    mode: 'async',
    abstract: `task ${index}`,
    state,
  };
}

describe('boundWindow', () => {
  it('keeps every message that fits, oldest first', () => {
    const messages = [newMessage(1, 100), newMessage(2, 100), newMessage(3, 100)];
    expect(boundWindow(messages, 1000)).toEqual(messages);
  });

  it('drops the oldest messages that do not fit and cuts one that partly fits', () => {
    const window = boundWindow([newMessage(1, 5000), newMessage(2, 3000), newMessage(3, 3000)], 7000);
    expect(window.map((message) => message.seq)).toEqual([1, 2, 3]);
    expect(window[0].content).toHaveLength(1000);
    expect(window[0].content.endsWith(TRUNCATION_MARK)).toBe(true);
    expect(boundWindow([newMessage(1, 5000), newMessage(2, 6900)], 7000).map((message) => message.seq)).toEqual([2]);
  });

  it('always keeps the newest message, cut to the budget', () => {
    const [only] = boundWindow([newMessage(1, 10), newMessage(2, 50_000)], 2000);
    expect(only.seq).toBe(2);
    expect(only.content).toHaveLength(2000);
  });
});

describe('boundLedger', () => {
  it('keeps a small ledger whole', () => {
    const tasks = [newTask(1, 'completed'), newTask(2, 'working')];
    expect(boundLedger(tasks, 5)).toEqual(tasks);
  });

  it('keeps every unfinished task and the latest finished ones, in ledger order', () => {
    const tasks = [
      newTask(1, 'completed'),
      newTask(2, 'working'),
      newTask(3, 'failed'),
      newTask(4, 'completed'),
      newTask(5, 'submitted'),
      newTask(6, 'completed'),
    ];
    expect(boundLedger(tasks, 4).map((task) => task.abstract)).toEqual(['task 2', 'task 4', 'task 5', 'task 6']);
    expect(boundLedger(tasks, 2).map((task) => task.abstract)).toEqual(['task 2', 'task 5']);
  });
});
