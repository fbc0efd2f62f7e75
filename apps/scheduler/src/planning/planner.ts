import { Inject, Injectable, Module } from '@nestjs/common';
import type { ModelUsageV1, TaskBriefV1 } from '@ioa/contracts';
import {
  callFor,
  emptyUsage,
  LANGUAGE_MODEL,
  LlmModule,
  ModelDecisionError,
  TaskBriefPurpose,
  TeamPickPurpose,
  TeamQueriesPurpose,
  type LanguageModel,
  type ModelCall,
  type TaskBriefInput,
  type TeamCandidate,
  type TeamPickMember,
} from '@ioa/llm';

/** A model decision and what it cost (usage counts towards the goal's budget). */
export interface Planned<T> {
  value: T;
  usage: ModelUsageV1;
}

/** The model could not decide; the usage spent on trying still counts. */
export class PlanningFailedError extends Error {
  constructor(
    message: string,
    readonly usage: ModelUsageV1,
  ) {
    super(message);
    this.name = 'PlanningFailedError';
  }
}

/**
 * The scheduler's model decisions, on top of `@ioa/llm` (the OpenAI-compatible model when configured, otherwise the
 * deterministic offline model whose rules live there, in one place): capability queries and team picks for team
 * formation, and the self-contained brief of a task.
 */
@Injectable()
export class Planner {
  constructor(@Inject(LANGUAGE_MODEL) private readonly model: LanguageModel) {}

  /** `team.queries`: what the goal needs, as short capability queries for discovery. */
  writeCapabilityQueries(goal: string): Promise<Planned<string[]>> {
    return this.decide(callFor(TeamQueriesPurpose, { goal, maxQueries: 6 }), (output) => output.queries);
  }

  /** `team.pick`: 1–4 members among the candidates (never anyone else), with reasons; none when nobody fits. */
  async pickTeam(goal: string, queries: string[], candidates: TeamCandidate[]): Promise<Planned<TeamPickMember[]>> {
    const planned = await this.decide(
      callFor(TeamPickPurpose, { goal, queries, candidates, maxMembers: 4, minScore: 0.1 }),
      (output) => output.members,
    );
    // A remote model may still name someone it was not offered: such picks are dropped, not trusted.
    const offered = new Set(candidates.map((candidate) => candidate.agentId));
    const seen = new Set<string>();
    const members = planned.value.filter((member) => {
      if (!offered.has(member.agentId) || seen.has(member.agentId)) return false;
      seen.add(member.agentId);
      return true;
    });
    return { value: members.slice(0, 4), usage: planned.usage };
  }

  /** `task.brief`: the task rewritten so its owner can do it without reading the chat. */
  writeBrief(input: TaskBriefInput): Promise<Planned<TaskBriefV1>> {
    return this.decide(callFor(TaskBriefPurpose, input), (output) => output);
  }

  private async decide<O extends object, T>(call: ModelCall<O>, pick: (output: O) => T): Promise<Planned<T>> {
    try {
      const decision = await this.model.decide<O>(call);
      return { value: pick(decision.output), usage: decision.usage };
    } catch (error) {
      const usage = error instanceof ModelDecisionError ? error.usage : emptyUsage();
      throw new PlanningFailedError(`The model could not decide ${call.purpose}: ${(error as Error)?.message}`, usage);
    }
  }
}

@Module({
  imports: [LlmModule],
  providers: [Planner],
  exports: [Planner],
})
export class PlanningModule {}
