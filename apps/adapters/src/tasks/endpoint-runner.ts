import type {
  AdaptedEndpointKind,
  AgentSkillV1,
  ModelUsageV1,
  TaskAssignmentV1Request,
  TaskBriefV1,
} from '@ioa/contracts';
import type { EndpointSettings } from '../agents/adapted-agent.entity.js';

/** Where and how to reach one endpoint (a stored agent, or one being registered). */
export interface EndpointTarget {
  /** The registry id, once the agent is registered. */
  agentId?: string;
  kind: AdaptedEndpointKind;
  url: string;
  settings: EndpointSettings;
  secret: string | null;
}

/** What an endpoint says about itself: an A2A card, an MCP server's tools. Registration fields override it. */
export interface EndpointProfile {
  name?: string;
  description?: string;
  skills?: AgentSkillV1[];
  version?: string;
  provider?: { organization: string; url?: string };
  documentationUrl?: string;
  metadata?: Record<string, unknown>;
}

/**
 * How far a task's remote work got, saved as it goes so that the replica resuming the task after a crash carries
 * on from there: an A2A task is followed again (GetTask, then SubscribeToTask or polling) instead of being sent
 * twice; MCP tool calls already answered are not made again.
 */
export interface TaskCheckpoint {
  a2a?: { taskId: string; contextId: string };
  mcpCalls?: { name: string; arguments: Record<string, unknown>; output: string; isError: boolean }[];
}

/** Why a run was cut short by this replica stopping: the remote work goes on, and a replica resumes the task. */
export class AdaptersStoppingError extends Error {
  constructor() {
    super('the adapters service is stopping; the task is resumed by a replica');
  }
}

/** One task as a runner sees it: the assignment, a cancel signal, and the two ways back to the group. */
export interface TaskRun {
  target: EndpointTarget & { agentId: string };
  agentName: string;
  assignment: TaskAssignmentV1Request;
  /**
   * Aborted when the task is canceled or the deadline passes (the runner then cancels the remote work too), or when
   * this replica stops (reason: `AdaptersStoppingError`; the remote work must go on, for the resuming replica).
   */
  signal: AbortSignal;
  /** What an earlier run of this task (on a replica that died) saved; empty on the first run. */
  resumedFrom: TaskCheckpoint;
  /** Saves how far the remote work got; a failure to save is logged, never thrown (resuming then re-runs more). */
  checkpoint(checkpoint: TaskCheckpoint): Promise<void>;
  /** Reports `working` with a progress note. */
  progress(note: string): Promise<void>;
  /**
   * Reports `input-required` with the question (chat posts it in the group) and resolves with the first answer
   * posted in the group after it: a person's message or another member's.
   */
  askGroup(question: string): Promise<string>;
}

export type TaskOutcome =
  | { state: 'completed' | 'failed' | 'rejected'; content: string; usage?: ModelUsageV1 }
  /** The endpoint took the task and reports later (a webhook answering `202`). */
  | { state: 'pending' };

/** One endpoint kind: how to read its self-description, whether it is up, and how to run a task on it. */
export interface EndpointRunner {
  readonly kind: AdaptedEndpointKind;
  /**
   * Reads what the endpoint says about itself. Registration calls it inside a request/reply, so it must answer
   * within the caller's timeout: one attempt, with the probe timeout.
   */
  describe(target: EndpointTarget): Promise<EndpointProfile>;
  /** Resolves when the endpoint answers at all; throws with the reason when it does not. */
  probe(target: EndpointTarget): Promise<void>;
  run(task: TaskRun): Promise<TaskOutcome>;
}

/** Whether an abort means "cancel the remote work" (our cancel, the deadline) rather than "this replica stops". */
export function cancelsRemoteWork(signal: AbortSignal): boolean {
  return signal.aborted && !(signal.reason instanceof AdaptersStoppingError);
}

export const ENDPOINT_RUNNERS = Symbol('ENDPOINT_RUNNERS');

/** The brief as one text for agents that take a single prompt (A2A message, chat completion, MCP tool choice). */
export function briefText(brief: TaskBriefV1): string {
  const parts = [`# ${brief.abstract}`, brief.description];
  if (brief.inputs.trim()) parts.push(`## Inputs\n${brief.inputs}`);
  parts.push(`## Done when\n${brief.completionCriteria}`);
  return parts.join('\n\n');
}
