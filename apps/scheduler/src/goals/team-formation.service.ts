import { Inject, Injectable, Logger } from '@nestjs/common';
import pRetry, { type Options as PRetryOptions } from 'p-retry';
import type { ConfigType } from '@nestjs/config';
import { In, IsNull, LessThan } from 'typeorm';
import {
  ContractError,
  CreateGroupV1,
  FORMING_GOAL_STATUSES,
  GetAgentV1,
  SLUG_PATTERN,
  SearchAgentsV1,
  type AgentCardV1,
  type ModelUsageV1,
  type TeamMemberV1,
} from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { addUsage, emptyUsage, type TeamCandidate } from '@ioa/llm';
import { Transactions } from '@ioa/database';
import { GoalEventLog } from '../events/goal-event-log.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { Planner, PlanningFailedError } from '../planning/planner.js';
import { schedulerConfig } from '../scheduler.config.js';
import { GoalEntity } from './goal.entity.js';
import { lockGoal } from './goal-lock.js';
import { claimFormation, formationFailed, openedGroup, recordTeam, renewFormationLease } from './goal-state-machine.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TEAM = 4;
const CANDIDATES_PER_QUERY = 5;
/** How long formation waits for a service that does not answer (see `dependencyRetryOptions`). */
const DEPENDENCY_OUTAGE_WAIT_MS = 60_000;

type Formed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Raised when the goal left `forming_team` (canceled) while its team was being formed. */
class FormationAbandoned extends Error {}

/** An attempt at picking a team found nobody suitable (the message says why); a later attempt may. */
class NoTeamYet extends Error {}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Team formation, after the submit reply (a request never waits for it): `forming_team` → the named members are
 * resolved, or the model writes capability queries, discovery finds online candidates and the model picks 1–4 of
 * them → chat opens the group → `working`. Bounded attempts (`p-retry`); when nobody suitable exists the goal fails
 * with that reason rather than inventing a member. Every step that changes the goal is a decision of the goal state
 * machine (`claimFormation`, `recordTeam`, `openedGroup`, `formationFailed`); this class only talks to the other
 * services between them.
 *
 * Crash safety: the formation holds a lease on the goal (`formation_lease_until`), renewed at every step. A goal
 * left in `submitted` or `forming_team` with no live lease — the process crashed, or a replica did — is taken over
 * by the sweeper, also right at boot.
 */
@Injectable()
export class TeamFormation {
  private readonly logger = new Logger(TeamFormation.name);
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly transactions: Transactions,
    private readonly lifecycle: GoalLifecycle,
    private readonly log: GoalEventLog,
    private readonly planner: Planner,
    private readonly client: ContractClient,
    @Inject(schedulerConfig.KEY) private readonly config: ConfigType<typeof schedulerConfig>,
  ) {}

  /** Forms the goal's team in the background. */
  start(goalId: string): void {
    if (this.inFlight.has(goalId)) return;
    this.inFlight.add(goalId);
    void this.run(goalId)
      .catch((error: unknown) =>
        this.logger.error(`Team formation of goal ${goalId} stopped: ${String((error as Error)?.stack ?? error)}`),
      )
      .finally(() => this.inFlight.delete(goalId));
  }

  /** The sweeper's part: goals still forming whose formation is not running anywhere (no live lease). */
  async resumeStalled(): Promise<void> {
    const stalled = await this.transactions.manager.find(GoalEntity, {
      where: [
        { status: In([...FORMING_GOAL_STATUSES]), formationLeaseUntil: IsNull() },
        { status: In([...FORMING_GOAL_STATUSES]), formationLeaseUntil: LessThan(new Date()) },
      ],
      select: { id: true },
      take: 50,
    });
    for (const goal of stalled) this.start(goal.id);
  }

  private async run(goalId: string): Promise<void> {
    const goal = await this.claim(goalId);
    if (!goal) return;
    let usage = emptyUsage();
    try {
      const team = goal.requestedMembers
        ? await this.resolveMembers(goal)
        : await this.discoverTeam(goal, (spent) => {
            usage = addUsage(usage, spent);
          });
      if (!team.ok) return await this.fail(goalId, team.reason, usage);
      await this.recordTeam(goalId, team.value, usage);
      usage = emptyUsage();
      const groupId = await this.openGroup(goal, team.value);
      if (!groupId.ok) return await this.fail(goalId, groupId.reason, usage);
      await this.startWorking(goalId, groupId.value);
    } catch (error) {
      if (error instanceof FormationAbandoned) {
        this.logger.log(`Goal ${goalId} left team formation (${error.message})`);
        return;
      }
      throw error;
    }
  }

  /** Takes the goal for this process: `forming_team` with a fresh lease, unless someone else holds one. */
  private claim(goalId: string): Promise<GoalEntity | null> {
    return this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, goalId);
      if (!goal) return null;
      const decision = claimFormation(goal, new Date(), this.leaseEnd());
      // Formed already, canceled, or another formation holds the lease: nothing for this one to do.
      if (decision.outcome !== 'transition') return null;
      await this.lifecycle.apply(unit, goal, decision);
      return goal;
    });
  }

  /** Extends the lease before a step; stops the formation when the goal was canceled meanwhile. */
  private async renewLease(goalId: string): Promise<void> {
    const renewed = await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, goalId);
      if (!goal) return false;
      const decision = renewFormationLease(goal, new Date(), this.leaseEnd());
      if (decision.outcome !== 'transition') return false;
      return this.lifecycle.apply(unit, goal, decision);
    });
    if (!renewed) throw new FormationAbandoned('no longer forming its team');
  }

  private leaseEnd(): Date {
    return new Date(Date.now() + this.config.leaseSeconds * 1000);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // explicit members

  private async resolveMembers(goal: GoalEntity): Promise<Formed<TeamMemberV1[]>> {
    const team: TeamMemberV1[] = [];
    for (const reference of goal.requestedMembers ?? []) {
      const found = await this.lookUp(goal.id, reference);
      if (!found.ok) return found;
      const agent = found.value;
      if (agent.status !== 'online') {
        return { ok: false, reason: `Agent "${agent.name}" is offline, so it cannot join the team` };
      }
      if (team.some((member) => member.agentId === agent.id)) continue;
      const reason = team.length === 0 ? 'Named by the submitter; leads the team' : 'Named by the submitter';
      team.push({ agentId: agent.id, name: agent.name, reason });
    }
    return team.length > 0 ? { ok: true, value: team } : { ok: false, reason: 'No members were named' };
  }

  private async lookUp(goalId: string, reference: string): Promise<Formed<AgentCardV1>> {
    const unknown = {
      ok: false as const,
      reason: `Unknown agent "${reference}": no agent of that name or id is registered`,
    };
    const request = UUID_PATTERN.test(reference) ? { id: reference.toLowerCase() } : { name: reference };
    if (request.name !== undefined && !SLUG_PATTERN.test(request.name)) return unknown;
    try {
      const agent = await pRetry(async () => {
        await this.renewLease(goalId);
        return this.client.request(GetAgentV1, request);
      }, this.dependencyRetryOptions());
      return { ok: true, value: agent };
    } catch (error) {
      if (error instanceof FormationAbandoned) throw error;
      if (error instanceof ContractError && (error.code === 'NOT_FOUND' || error.code === 'VALIDATION_FAILED')) {
        return unknown;
      }
      return { ok: false, reason: `The registry could not resolve "${reference}": ${messageOf(error)}` };
    }
  }

  /**
   * Retries of one formation step (in memory: a crash hands the whole formation to the sweeper, through the lease).
   * A canceled goal, or an answer that will not change (NOT_FOUND, INVALID_STATE…), ends them at once.
   */
  private retryOptions(): PRetryOptions {
    return {
      retries: this.config.formationAttempts - 1,
      minTimeout: 200,
      factor: 2,
      shouldRetry: ({ error }) =>
        !(error instanceof FormationAbandoned) && !(error instanceof ContractError && !error.retryable),
    };
  }

  /**
   * Retries of a request to another service (the registry's lookup, chat's group). No answer (UNAVAILABLE: no
   * responder; TIMEOUT) usually means that service is restarting, which takes seconds: the step keeps asking, with
   * backoff up to 2 s, for up to a minute. The three quick attempts of `retryOptions` (0.6 s) failed every goal that
   * reached this step while chat restarted ("No service is answering ioa.chat.group.create.v1", issue 7; the fault
   * suite's "every replica down when a goal is submitted" reproduces it).
   */
  private dependencyRetryOptions(): PRetryOptions {
    return {
      ...this.retryOptions(),
      retries: Number.POSITIVE_INFINITY,
      maxTimeout: 2000,
      maxRetryTime: DEPENDENCY_OUTAGE_WAIT_MS,
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // autonomous formation

  private async discoverTeam(goal: GoalEntity, spend: (usage: ModelUsageV1) => void): Promise<Formed<TeamMemberV1[]>> {
    try {
      const team = await pRetry(() => this.tryToPickTeam(goal, spend), {
        ...this.retryOptions(),
        // Discovery indexes new agents asynchronously: a later attempt may find what this one did not.
        shouldRetry: ({ error }) => error instanceof NoTeamYet || error instanceof PlanningFailedError,
      });
      return { ok: true, value: team };
    } catch (error) {
      if (!(error instanceof NoTeamYet || error instanceof PlanningFailedError)) throw error;
      return {
        ok: false,
        reason: `No suitable agent for this goal after ${this.config.formationAttempts} attempts: ${error.message}`,
      };
    }
  }

  /** One attempt: the model writes capability queries, discovery finds candidates, the model picks the team. */
  private async tryToPickTeam(goal: GoalEntity, spend: (usage: ModelUsageV1) => void): Promise<TeamMemberV1[]> {
    await this.renewLease(goal.id);
    try {
      const queries = await this.planner.writeCapabilityQueries(goal.goal);
      spend(queries.usage);
      if (queries.value.length === 0) throw new NoTeamYet('the model wrote no capability queries');
      const candidates = await this.search(queries.value);
      if (!candidates.ok) throw new NoTeamYet(candidates.reason);
      if (candidates.value.length === 0) {
        throw new NoTeamYet(`discovery found no online agent for ${quoteAll(queries.value)}`);
      }
      await this.renewLease(goal.id);
      const picks = await this.planner.pickTeam(goal.goal, queries.value, candidates.value);
      spend(picks.usage);
      if (picks.value.length === 0) {
        throw new NoTeamYet(`no online agent is similar enough to ${quoteAll(queries.value)}`);
      }
      const names = new Map(candidates.value.map((candidate) => [candidate.agentId, candidate.name]));
      return picks.value.slice(0, MAX_TEAM).map((pick) => ({
        agentId: pick.agentId,
        name: names.get(pick.agentId) ?? pick.agentId,
        reason: pick.reason,
      }));
    } catch (error) {
      // What a failed planning call cost still counts towards the goal.
      if (error instanceof PlanningFailedError) spend(error.usage);
      throw error;
    }
  }

  /** One search per query, so each query's own best candidates are seen (a merged search keeps one query per agent). */
  private async search(queries: string[]): Promise<Formed<TeamCandidate[]>> {
    const results = await Promise.allSettled(
      queries.map((query) =>
        this.client.request(SearchAgentsV1, {
          queries: [query],
          topK: CANDIDATES_PER_QUERY,
          minScore: 0,
          onlineOnly: true,
        }),
      ),
    );
    const candidates: TeamCandidate[] = [];
    let failure: string | undefined;
    results.forEach((result, index) => {
      if (result.status === 'rejected') {
        failure = `discovery did not answer: ${(result.reason as Error)?.message ?? result.reason}`;
        return;
      }
      for (const match of result.value.matches) {
        if (match.agent.status !== 'online') continue;
        candidates.push({
          agentId: match.agent.id,
          name: match.agent.name,
          description: match.agent.description,
          skills: match.agent.skills.map((skill) => ({
            name: skill.name,
            description: skill.description,
            tags: skill.tags,
          })),
          score: match.score,
          matchedQuery: queries[index],
        });
      }
    });
    if (failure && candidates.length === 0) return { ok: false, reason: failure };
    return { ok: true, value: candidates };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // the group

  private async recordTeam(goalId: string, team: TeamMemberV1[], usage: ModelUsageV1): Promise<void> {
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, goalId);
      if (!goal) throw new FormationAbandoned('the goal is gone');
      const decision = recordTeam(goal, team, usage, new Date());
      if (decision.outcome === 'rejected') throw new FormationAbandoned(decision.reason);
      await this.lifecycle.apply(unit, goal, decision);
      await this.log.append(unit, goal, 'team', { members: team, leaderId: team[0].agentId });
    });
  }

  private async openGroup(goal: GoalEntity, team: TeamMemberV1[]): Promise<Formed<string>> {
    // A formation resumed after a crash: the group may exist already (its first message told us).
    const known = await this.transactions.manager.findOne(GoalEntity, {
      where: { id: goal.id },
      select: { id: true, groupId: true },
    });
    if (known?.groupId) return { ok: true, value: known.groupId };
    try {
      const group = await pRetry(async () => {
        await this.renewLease(goal.id);
        return this.client.request(
          CreateGroupV1,
          {
            goalId: goal.id,
            goal: goal.goal,
            members: team.map((member) => ({
              agentId: member.agentId,
              name: member.name,
              reason: member.reason.slice(0, 1000),
            })),
            leaderId: team[0].agentId,
            maxTurns: goal.maxTurns,
            turnTimeoutSeconds: this.config.turnTimeoutSeconds,
          },
          // A formation taken over after a crash asks again: chat may answer with the group it already opened.
          { idempotencyKey: `group:${goal.id}` },
        );
      }, this.dependencyRetryOptions());
      return { ok: true, value: group.id };
    } catch (error) {
      if (error instanceof FormationAbandoned) throw error;
      return { ok: false, reason: `The group chat could not be opened: ${messageOf(error)}` };
    }
  }

  private async startWorking(goalId: string, groupId: string): Promise<void> {
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, goalId);
      if (goal) await this.lifecycle.apply(unit, goal, openedGroup(goal, groupId, new Date()));
    });
  }

  private async fail(goalId: string, reason: string, usage: ModelUsageV1): Promise<void> {
    this.logger.log(`Goal ${goalId} failed to form a team: ${reason}`);
    await this.transactions.run(async (unit) => {
      const goal = await lockGoal(unit, goalId);
      if (goal) await this.lifecycle.apply(unit, goal, formationFailed(goal, reason, usage, new Date()));
    });
  }
}

function quoteAll(queries: string[]): string {
  return queries.map((query) => `"${query}"`).join(', ');
}
