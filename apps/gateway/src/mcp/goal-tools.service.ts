import { Injectable } from '@nestjs/common';
import {
  ContractError,
  isEndedGoalStatus,
  type Principal,
  ListAgentsV1,
  ListGoalEventsV1,
  SearchAgentsV1,
  USER_SPEAKER,
  type AgentCardV1,
  type GoalStatus,
  type GoalV1,
} from '@ioa/contracts';
import { ContractClient, type RequestOptions } from '@ioa/messaging';
import { followGoalEvents } from '../a2a/follow-goal-events.js';
import { GoalTaskTranslator } from '../a2a/goal-task-translator.js';
import { GoalEventStreams } from '../goals/goal-event-streams.js';
import { GoalsService } from '../goals/goals.service.js';

/** What a tool tells the model about a goal: enough to act on, without the whole event log. */
export interface GoalSummary {
  goalId: string;
  goal: string;
  status: GoalStatus;
  statusReason: string | null;
  conclusion: string | null;
  team: string[];
  tasks: Array<{ assignee: string; description: string; state: string; result: string | null }>;
  /** The question the team put to the person, while the goal is `input_required`. */
  question?: string;
}

export interface AgentSummary {
  id: string;
  name: string;
  description: string;
  status: string;
  skills: string[];
  endpoint: string;
  score?: number;
}

/** Called with each step of a goal being waited on (the MCP progress notifications). */
export type GoalProgress = (step: number, message: string) => Promise<void>;

export function summarizeGoal(goal: GoalV1, question?: string): GoalSummary {
  return {
    goalId: goal.id,
    goal: goal.goal,
    status: goal.status,
    statusReason: goal.statusReason,
    conclusion: goal.conclusion,
    team: goal.team.map((member) => member.name),
    tasks: goal.tasks.map((task) => ({
      assignee: task.assigneeName,
      description: task.description,
      state: task.state,
      result: task.result,
    })),
    ...(question !== undefined && goal.status === 'input_required' ? { question } : {}),
  };
}

export function summarizeAgent(agent: AgentCardV1, score?: number): AgentSummary {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    status: agent.status,
    skills: agent.skills.map((skill) => skill.name),
    endpoint: agent.endpoint.kind,
    ...(score === undefined ? {} : { score: Math.round(score * 1000) / 1000 }),
  };
}

/**
 * What the MCP tools do, over the gateway's existing services: goals through the scheduler (and their event log for
 * waiting), agents through the registry and discovery. Transport-free, so the tools stay thin.
 */
@Injectable()
export class GoalToolsService {
  /** Who the tools act for: the MCP endpoint binds each request's tools to its authenticated caller. */
  private caller: RequestOptions = {};

  constructor(
    private readonly goals: GoalsService,
    private readonly streams: GoalEventStreams,
    private readonly client: ContractClient,
  ) {}

  /** The same tools acting as `principal`: every request they make carries it (`Ioa-Principal`). */
  forCaller(principal: Principal): GoalToolsService {
    const tools = new GoalToolsService(this.goals, this.streams, this.client);
    tools.caller = { principal: { accountId: principal.accountId, role: principal.role } };
    return tools;
  }

  async submit(goal: string, members: string[] | undefined): Promise<GoalV1> {
    return this.goals.submit({ goal, members }, this.caller);
  }

  async get(goalId: string): Promise<GoalV1> {
    return this.goals.get(goalId, this.caller);
  }

  async cancel(goalId: string, reason: string | undefined): Promise<GoalV1> {
    return this.goals.cancel(goalId, { reason }, this.caller);
  }

  /** Posts the person's message; returns where the goal's log stood before it, to wait from there. */
  async postMessage(goalId: string, content: string): Promise<{ goal: GoalV1; afterSeq: number }> {
    const { lastSeq } = await this.client.request(ListGoalEventsV1, { goalId, afterSeq: 0, limit: 1 }, this.caller);
    return { goal: await this.goals.postMessage(goalId, { content }, this.caller), afterSeq: lastSeq };
  }

  async searchAgents(query: string, topK: number, onlineOnly: boolean): Promise<AgentSummary[]> {
    const search = { queries: [query], topK, onlineOnly, minScore: 0 };
    const result = await this.client.request(SearchAgentsV1, search, this.caller);
    return result.matches.map((match) => summarizeAgent(match.agent, match.score));
  }

  async listAgents(online: boolean | undefined, limit: number, offset: number) {
    const status = online === undefined ? undefined : online ? 'online' : 'offline';
    const page = await this.client.request(ListAgentsV1, { status, limit, offset }, this.caller);
    return { total: page.total, agents: page.items.map((agent) => summarizeAgent(agent)) };
  }

  /**
   * Follows a goal's event log after `afterSeq` until it ends, asks the person something, or `timeoutMs` passes,
   * reporting each step; then answers the goal as it stands (a timeout is not an error: the goal goes on).
   */
  async waitFor(
    goalId: string,
    afterSeq: number,
    timeoutMs: number,
    progress: GoalProgress,
    signal: AbortSignal,
  ): Promise<GoalSummary> {
    const stop = new AbortController();
    const abort = () => stop.abort();
    signal.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(abort, timeoutMs);
    const translator = new GoalTaskTranslator();
    let question: string | undefined;
    let step = 0;
    let reporting: Promise<void> = Promise.resolve();
    try {
      const stream = await this.streams.open({
        goalId,
        afterSeq,
        follow: false,
        signal: stop.signal,
        trace: this.caller,
      });
      if (stream !== null && !stop.signal.aborted) {
        await followGoalEvents(stream, stop.signal, (event) => {
          for (const update of translator.translate(event)) {
            if (update.kind !== 'status') continue;
            step += 1;
            const line = update.text;
            reporting = reporting.then(() => progress(step, line)).catch(() => undefined);
          }
          if (event.type === 'message' && event.data.nextSpeaker === USER_SPEAKER)
            question = String(event.data.content);
          const status = event.type === 'status' ? (event.data.status as GoalStatus) : undefined;
          if (status && (isEndedGoalStatus(status) || status === 'input_required')) stop.abort();
        });
      }
      await reporting;
      return summarizeGoal(await this.goals.get(goalId, this.caller), question);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      stop.abort();
    }
  }
}

/** A tool's failure as the model should read it: the platform's error code and message. */
export function describeError(error: unknown): string {
  if (error instanceof ContractError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
