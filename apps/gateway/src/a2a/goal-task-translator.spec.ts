import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { TaskState } from '@a2a-js/sdk';
import type { GoalEventV1, GoalEventType } from '@ioa/contracts';
import { endsExecution, GoalTaskTranslator, taskStateOfGoal } from './goal-task-translator.js';

let seq = 0;
function event(type: GoalEventType, data: Record<string, unknown>): GoalEventV1 {
  seq += 1;
  return { goalId: '3f0e1a52-5d7e-4c1b-9d0a-2f6f4f1c9e11', seq, type, data, at: new Date(0).toISOString() };
}

describe('GoalTaskTranslator', () => {
  it('maps every goal status onto an A2A task state', () => {
    expect(taskStateOfGoal('submitted')).toBe(TaskState.TASK_STATE_WORKING);
    expect(taskStateOfGoal('forming_team')).toBe(TaskState.TASK_STATE_WORKING);
    expect(taskStateOfGoal('working')).toBe(TaskState.TASK_STATE_WORKING);
    expect(taskStateOfGoal('input_required')).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(taskStateOfGoal('completed')).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(taskStateOfGoal('failed')).toBe(TaskState.TASK_STATE_FAILED);
    expect(taskStateOfGoal('canceled')).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('asks the person the question a member put to them', () => {
    const translator = new GoalTaskTranslator();
    const asked = translator.translate(
      event('message', { type: 'discussion', senderName: 'greeter', content: 'Which city?', nextSpeaker: 'user' }),
    );
    expect(asked).toEqual([{ kind: 'status', state: TaskState.TASK_STATE_WORKING, text: 'greeter: Which city?' }]);
    const [waiting] = translator.translate(event('status', { status: 'input_required' }));
    expect(waiting).toEqual({ kind: 'status', state: TaskState.TASK_STATE_INPUT_REQUIRED, text: 'Which city?' });
    expect(endsExecution(waiting)).toBe(true);
  });

  it('ends with the conclusion as an artifact, then the completed state', () => {
    const updates = new GoalTaskTranslator().translate(
      event('status', { status: 'completed', conclusion: 'It is 42.' }),
    );
    expect(updates).toEqual([
      expect.objectContaining({ kind: 'artifact', artifactId: 'conclusion', text: 'It is 42.' }),
      { kind: 'status', state: TaskState.TASK_STATE_COMPLETED, text: 'It is 42.' },
    ]);
  });

  it('says why a goal failed or was canceled', () => {
    const translator = new GoalTaskTranslator();
    expect(translator.translate(event('status', { status: 'failed', statusReason: 'No agent found' }))).toEqual([
      { kind: 'status', state: TaskState.TASK_STATE_FAILED, text: 'No agent found' },
    ]);
    expect(translator.translate(event('status', { status: 'canceled', statusReason: null }))).toEqual([
      { kind: 'status', state: TaskState.TASK_STATE_CANCELED, text: 'The goal was canceled' },
    ]);
  });

  it('reports a completed task with its result as an artifact, and skips the person’s own words', () => {
    const translator = new GoalTaskTranslator();
    const task = { id: 't1', state: 'completed', assigneeName: 'code-runner', description: 'Run it', result: '42' };
    const [artifact, status] = translator.translate(event('task', task));
    expect(artifact).toMatchObject({ kind: 'artifact', artifactId: 'task-t1', text: '42' });
    expect(status).toMatchObject({ kind: 'status', state: TaskState.TASK_STATE_WORKING });
    expect(endsExecution(status)).toBe(false);
    expect(translator.translate(event('message', { type: 'user', senderName: 'user', content: 'Paris' }))).toEqual([]);
    expect(translator.translate(event('group', { state: 'discussing' }))).toEqual([]);
  });
});
