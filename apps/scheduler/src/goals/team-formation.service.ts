import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { In, IsNull, LessThan } from 'typeorm';
import {
  ContractError,
  CreateGroupV1,
  GetAgentV1,
  SearchAgentsV1,
  SLUG_PATTERN,
  type AgentCardV1,
  type ModelUsageV1,
  type TeamMemberV1,
} from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { addUsage, emptyUsage, type TeamCandidate } from '@ioa/llm';
import { GoalEventLog } from '../events/goal-event-log.js';
import { Budgets } from '../lifecycle/budgets.js';
import { GoalChanges } from '../lifecycle/goal-changes.js';
import { GoalLifecycle } from '../lifecycle/goal-lifecycle.js';
import { Transactions } from '../persistence/unit-of-work.js';
import { Planner, PlanningFailedError } from '../planning/planner.js';
import { schedulerConfig } from '../scheduler.config.js';
import { FORMING_GOAL_STATUSES, GoalEntity } from './goal.entity.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TEAM = 4;
const CANDIDATES_PER_QUERY = 5;

type Formed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Raised when the goal left `forming_team` (canceled) while its team was being formed. */
class FormationAbandoned extends Error {}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Team formation, after the submit reply (a request never waits for it): `forming_team` → the named members are
 * resolved, or the model writes capability queries, discovery finds online candidates and the model picks 1–4 of
 * them → chat opens the group → `working`. Bounded attempts; when nobody suitable exists the goal fails with that
 * reason rather than inventing a member.
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
    private readonly goals: GoalChanges,
    private readonly lifecycle: GoalLifecycle,
    private readonly budgets: Budgets,
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
      const goal = await unit.lockGoal(goalId);
      if (!goal || !FORMING_GOAL_STATUSES.includes(goal.status)) return null;
      if (goal.formationLeaseUntil !== null && goal.formationLeaseUntil > new Date()) return null;
      goal.formationLeaseUntil = this.leaseEnd();
      if (goal.status === 'submitted') await this.goals.setStatus(unit, goal, { status: 'forming_team' });
      else await this.goals.save(unit, goal);
      return goal;
    });
  }

  /** Extends the lease before a step; stops the formation when the goal was canceled meanwhile. */
  private async renewLease(goalId: string): Promise<void> {
    const result = await this.transactions.manager.update(
      GoalEntity,
      { id: goalId, status: 'forming_team' },
      { formationLeaseUntil: this.leaseEnd() },
    );
    if (!result.affected) throw new FormationAbandoned('no longer forming its team');
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
    let lastError = '';
    for (let attempt = 1; attempt <= this.config.formationAttempts; attempt += 1) {
      await this.renewLease(goalId);
      try {
        return { ok: true, value: await this.client.request(GetAgentV1, request) };
      } catch (error) {
        if (error instanceof ContractError && (error.code === 'NOT_FOUND' || error.code === 'VALIDATION_FAILED')) {
          return unknown;
        }
        lastError = (error as Error)?.message ?? String(error);
        if (error instanceof ContractError && !error.retryable) break;
        await delay(200 * attempt);
      }
    }
    return { ok: false, reason: `The registry could not resolve "${reference}": ${lastError}` };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // autonomous formation

  private async discoverTeam(goal: GoalEntity, spend: (usage: ModelUsageV1) => void): Promise<Formed<TeamMemberV1[]>> {
    let lastReason = 'no attempt was made';
    for (let attempt = 1; attempt <= this.config.formationAttempts; attempt += 1) {
      if (attempt > 1) await delay(200 * (attempt - 1)); // discovery indexes new agents asynchronously
      await this.renewLease(goal.id);
      try {
        const queries = await this.planner.writeCapabilityQueries(goal.goal);
        spend(queries.usage);
        if (queries.value.length === 0) {
          lastReason = 'the model wrote no capability queries';
          continue;
        }
        const candidates = await this.search(queries.value);
        if (!candidates.ok) {
          lastReason = candidates.reason;
          continue;
        }
        if (candidates.value.length === 0) {
          lastReason = `discovery found no online agent for ${quoteAll(queries.value)}`;
          continue;
        }
        await this.renewLease(goal.id);
        const picks = await this.planner.pickTeam(goal.goal, queries.value, candidates.value);
        spend(picks.usage);
        if (picks.value.length === 0) {
          lastReason = `no online agent is similar enough to ${quoteAll(queries.value)}`;
          continue;
        }
        const names = new Map(candidates.value.map((candidate) => [candidate.agentId, candidate.name]));
        const team = picks.value.slice(0, MAX_TEAM).map((pick) => ({
          agentId: pick.agentId,
          name: names.get(pick.agentId) ?? pick.agentId,
          reason: pick.reason,
        }));
        return { ok: true, value: team };
      } catch (error) {
        if (!(error instanceof PlanningFailedError)) throw error;
        spend(error.usage);
        lastReason = error.message;
      }
    }
    return {
      ok: false,
      reason: `No suitable agent for this goal after ${this.config.formationAttempts} attempts: ${lastReason}`,
    };
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
      const goal = await unit.lockGoal(goalId);
      if (!goal || goal.status !== 'forming_team') throw new FormationAbandoned(`status ${goal?.status ?? 'gone'}`);
      goal.team = team;
      this.goals.addUsage(goal, usage);
      await this.goals.save(unit, goal);
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
    let lastError = '';
    for (let attempt = 1; attempt <= this.config.formationAttempts; attempt += 1) {
      await this.renewLease(goal.id);
      try {
        const group = await this.client.request(
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
        return { ok: true, value: group.id };
      } catch (error) {
        lastError = (error as Error)?.message ?? String(error);
        if (error instanceof ContractError && !error.retryable) break;
        await delay(200 * attempt);
      }
    }
    return { ok: false, reason: `The group chat could not be opened: ${lastError}` };
  }

  private async startWorking(goalId: string, groupId: string): Promise<void> {
    await this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(goalId);
      if (!goal) return;
      goal.groupId = groupId;
      goal.formationLeaseUntil = null;
      if (goal.status !== 'forming_team') {
        // Canceled while the group was being opened (the follow-up closes the group), or already concluded by a
        // fast team (chat's events overtook this reply).
        await this.goals.save(unit, goal);
        unit.afterCommit(() => this.lifecycle.followUp(goalId));
        return;
      }
      await this.goals.setStatus(unit, goal, { status: 'working' });
      // The leader may already have asked the person something.
      await this.lifecycle.syncConversationStatus(unit, goal);
      await this.budgets.check(unit, goal);
    });
  }

  private async fail(goalId: string, reason: string, usage: ModelUsageV1): Promise<void> {
    this.logger.log(`Goal ${goalId} failed to form a team: ${reason}`);
    await this.transactions.run(async (unit) => {
      const goal = await unit.lockGoal(goalId);
      if (!goal || goal.status !== 'forming_team') return;
      this.goals.addUsage(goal, usage);
      goal.formationLeaseUntil = null;
      await this.lifecycle.end(unit, goal, { status: 'failed', reason });
    });
  }
}

function quoteAll(queries: string[]): string {
  return queries.map((query) => `"${query}"`).join(', ');
}
