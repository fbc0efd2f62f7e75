import { TaskState } from '@a2a-js/sdk';
import { USER_SPEAKER, type GoalEventV1, type GoalStatus, type GoalV1 } from '@ioa/contracts';

/** A2A task states that end a task for good (input-required only pauses it). */
export type FinalTaskState =
  TaskState.TASK_STATE_COMPLETED | TaskState.TASK_STATE_FAILED | TaskState.TASK_STATE_CANCELED;

/** The A2A states a goal's task goes through. */
export type GoalTaskState = TaskState.TASK_STATE_WORKING | TaskState.TASK_STATE_INPUT_REQUIRED | FinalTaskState;

/** One thing to tell the A2A client about the task: a status update or an artifact. */
export type GoalTaskUpdate =
  | { kind: 'status'; state: GoalTaskState; text: string }
  | { kind: 'artifact'; artifactId: string; name: string; description: string; text: string };

/** The A2A state a goal status maps to: our `input_required` is A2A's `input-required`, and so on. */
export function taskStateOfGoal(status: GoalStatus): GoalTaskState {
  switch (status) {
    case 'submitted':
    case 'forming_team':
    case 'working':
      return TaskState.TASK_STATE_WORKING;
    case 'input_required':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'failed':
      return TaskState.TASK_STATE_FAILED;
    case 'canceled':
      return TaskState.TASK_STATE_CANCELED;
  }
}

/** Whether an update ends this A2A task's execution: a final state, or a question for the person. */
export function endsExecution(update: GoalTaskUpdate): boolean {
  return update.kind === 'status' && update.state !== TaskState.TASK_STATE_WORKING;
}

const STATUS_TEXT: Record<GoalStatus, string> = {
  submitted: 'Goal submitted',
  forming_team: 'Forming a team for the goal',
  working: 'The team is at work',
  input_required: 'The team is waiting for your answer',
  completed: 'The goal is complete',
  failed: 'The goal failed',
  canceled: 'The goal was canceled',
};

/**
 * Turns a goal's event log, read in `seq` order, into what an A2A client sees of the task working on it: status
 * updates (`working` with a line per step, `input-required` with the team's question, then a final state) and
 * artifacts (each task result, and the conclusion). Pure: the caller publishes the updates.
 */
export class GoalTaskTranslator {
  /** The latest question a member put to the person: the `input-required` status carries it. */
  private question: string | undefined;

  translate(event: GoalEventV1): GoalTaskUpdate[] {
    switch (event.type) {
      case 'status':
        return this.onStatus(event.data as { status: GoalStatus; statusReason?: string | null; conclusion?: string });
      case 'team':
        return this.onTeam(event.data);
      case 'message':
        return this.onMessage(
          event.data as { type: string; senderName: string; content: string; nextSpeaker?: string },
        );
      case 'task':
        return this.onTask(
          event.data as {
            id: string;
            state: string;
            assigneeName: string;
            description: string;
            result?: string | null;
          },
        );
      case 'group':
        return [];
    }
  }

  private onStatus(data: {
    status: GoalStatus;
    statusReason?: string | null;
    conclusion?: string | null;
  }): GoalTaskUpdate[] {
    const state = taskStateOfGoal(data.status);
    switch (state) {
      case TaskState.TASK_STATE_WORKING:
        return [{ kind: 'status', state, text: STATUS_TEXT[data.status] }];
      case TaskState.TASK_STATE_INPUT_REQUIRED:
        return [{ kind: 'status', state, text: this.question ?? STATUS_TEXT.input_required }];
      case TaskState.TASK_STATE_COMPLETED: {
        const conclusion = data.conclusion ?? '';
        return [
          {
            kind: 'artifact',
            artifactId: 'conclusion',
            name: 'Conclusion',
            description: "The team's conclusion for the goal",
            text: conclusion,
          },
          { kind: 'status', state, text: conclusion || STATUS_TEXT.completed },
        ];
      }
      case TaskState.TASK_STATE_FAILED:
      case TaskState.TASK_STATE_CANCELED:
        return [{ kind: 'status', state, text: data.statusReason || STATUS_TEXT[data.status] }];
    }
  }

  private onTeam(data: { members?: Array<{ name: string }> }): GoalTaskUpdate[] {
    const names = (data.members ?? []).map((member) => member.name);
    return [{ kind: 'status', state: TaskState.TASK_STATE_WORKING, text: `Team: ${names.join(', ')}` }];
  }

  private onMessage(data: { type: string; senderName: string; content: string; nextSpeaker?: string }) {
    // The person's own words are already in the task's history.
    if (data.type === 'user') return [];
    if (data.nextSpeaker === USER_SPEAKER) this.question = data.content;
    const update: GoalTaskUpdate = {
      kind: 'status',
      state: TaskState.TASK_STATE_WORKING,
      text: `${data.senderName}: ${data.content}`,
    };
    return [update];
  }

  private onTask(data: {
    id: string;
    state: string;
    assigneeName: string;
    description: string;
    result?: string | null;
  }) {
    const updates: GoalTaskUpdate[] = [
      {
        kind: 'status',
        state: TaskState.TASK_STATE_WORKING,
        text: `Task for ${data.assigneeName} is ${data.state}: ${data.description}`,
      },
    ];
    if (data.state === 'completed' && data.result) {
      updates.unshift({
        kind: 'artifact',
        artifactId: `task-${data.id}`,
        name: `Result of ${data.assigneeName}`,
        description: data.description,
        text: data.result,
      });
    }
    return updates;
  }
}

/** The final update of a goal that has already ended (nothing left on its log to translate). */
export function finalUpdatesOfGoal(goal: GoalV1): GoalTaskUpdate[] {
  return new GoalTaskTranslator().translate({
    goalId: goal.id,
    seq: 0,
    type: 'status',
    data: { status: goal.status, statusReason: goal.statusReason, conclusion: goal.conclusion },
    at: goal.updatedAt,
  });
}
