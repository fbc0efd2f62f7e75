import type { ModelUsageV1, RegisterAgentV1Request, TaskAssignmentV1Request } from '@ioa/contracts';
import type { BuiltInAgentName } from '../agent-host.config.js';

/** What a hosted agent works with: the assignment (with its brief) and a signal that fires on cancellation. */
export interface TaskWork {
  assignment: TaskAssignmentV1Request;
  /** Aborted when the task is canceled (or the service shuts down): stop, nothing will be reported. */
  signal: AbortSignal;
}

/** How a task ended; becomes the final `ReportTaskV1`. */
export interface TaskOutcome {
  state: 'completed' | 'failed' | 'rejected';
  /** The result (completed) or the reason (failed, rejected). */
  content: string;
  usage?: ModelUsageV1;
}

/**
 * A built-in agent. It is registered like any other agent (its card comes from `card`), and the task dispatcher
 * hands it one task at a time per concurrency slot; it never reports by itself.
 */
export interface HostedAgent {
  readonly name: BuiltInAgentName;
  /** Tasks of this agent running at the same time (the rest queue); defaults to the configured concurrency. */
  readonly concurrency?: number;
  card(owner: string): RegisterAgentV1Request;
  run(work: TaskWork): Promise<TaskOutcome>;
}

/** Injection token: the hosted agents enabled by configuration. */
export const HOSTED_AGENTS = Symbol('HOSTED_AGENTS');
