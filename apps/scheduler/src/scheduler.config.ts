import { registerAs } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment variables of the scheduler, validated at boot so a typo fails the start, not a goal hours later. */
export class SchedulerEnvironment {
  /** Seconds a task may stay unfinished (from its creation) before it is failed. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(86_400)
  SCHEDULER_TASK_DEADLINE_SECONDS?: number;

  /** Deliveries of a task to its assignee before it is failed (no responder, or not accepted). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(20)
  SCHEDULER_DISPATCH_ATTEMPTS?: number;

  /** First retry delay of a failed delivery; it doubles with every attempt. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(600_000)
  SCHEDULER_DISPATCH_BACKOFF_MS?: number;

  /** How long an assignee has to acknowledge a task (it only acknowledges; the work is reported later). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(600_000)
  SCHEDULER_DISPATCH_TIMEOUT_MS?: number;

  /** How often the sweeper looks for due deliveries, passed deadlines, exhausted budgets and stalled goals. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(20)
  @Max(600_000)
  SCHEDULER_SWEEP_INTERVAL_MS?: number;

  /** `true`: a task whose owner went offline moves to another online member of its group instead of failing. */
  @IsOptional()
  @IsIn(['true', 'false'])
  SCHEDULER_REASSIGN_ON_OFFLINE?: string;

  /** Rounds of query-writing, search and picking before team formation gives up. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  SCHEDULER_FORMATION_ATTEMPTS?: number;

  /** Turn timeout of the groups the scheduler opens. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3600)
  SCHEDULER_TURN_TIMEOUT_SECONDS?: number;

  /** Recent chat messages a task brief draws its inputs from. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100)
  SCHEDULER_BRIEF_WINDOW?: number;

  /**
   * How long a group's events that arrived ahead of a missing message are held before the gap is given up on
   * (see `events/group-feed.ts`); a message goes missing only when its event was dead-lettered.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  SCHEDULER_GROUP_GAP_TIMEOUT_MS?: number;

  /** Top-level goals one account may have open at once (sub-goals do not count); admins are held to it too. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  SCHEDULER_MAX_OPEN_GOALS_PER_ACCOUNT?: number;
}

const SCHEDULER_VARIABLES = [
  'SCHEDULER_TASK_DEADLINE_SECONDS',
  'SCHEDULER_DISPATCH_ATTEMPTS',
  'SCHEDULER_DISPATCH_BACKOFF_MS',
  'SCHEDULER_DISPATCH_TIMEOUT_MS',
  'SCHEDULER_SWEEP_INTERVAL_MS',
  'SCHEDULER_REASSIGN_ON_OFFLINE',
  'SCHEDULER_FORMATION_ATTEMPTS',
  'SCHEDULER_TURN_TIMEOUT_SECONDS',
  'SCHEDULER_BRIEF_WINDOW',
  'SCHEDULER_GROUP_GAP_TIMEOUT_MS',
  'SCHEDULER_MAX_OPEN_GOALS_PER_ACCOUNT',
] as const;
type SchedulerVariable = (typeof SCHEDULER_VARIABLES)[number];

export const schedulerConfig = registerAs('scheduler', () => {
  // Empty values count as unset, so `VAR=` in a compose file falls back to the default.
  const environment: Partial<Record<SchedulerVariable, string>> = {};
  for (const key of SCHEDULER_VARIABLES) {
    const value = process.env[key];
    if (value !== undefined && value !== '') environment[key] = value;
  }
  validateEnvironment(environment, SchedulerEnvironment);
  const number = (key: SchedulerVariable, fallback: number) =>
    environment[key] === undefined ? fallback : Number(environment[key]);
  return {
    taskDeadlineSeconds: number('SCHEDULER_TASK_DEADLINE_SECONDS', 120),
    dispatchAttempts: number('SCHEDULER_DISPATCH_ATTEMPTS', 3),
    dispatchBackoffMs: number('SCHEDULER_DISPATCH_BACKOFF_MS', 500),
    dispatchTimeoutMs: number('SCHEDULER_DISPATCH_TIMEOUT_MS', 3000),
    sweepIntervalMs: number('SCHEDULER_SWEEP_INTERVAL_MS', 250),
    reassignOnOffline: environment.SCHEDULER_REASSIGN_ON_OFFLINE === 'true',
    formationAttempts: number('SCHEDULER_FORMATION_ATTEMPTS', 3),
    turnTimeoutSeconds: number('SCHEDULER_TURN_TIMEOUT_SECONDS', 60),
    briefWindow: number('SCHEDULER_BRIEF_WINDOW', 12),
    // Long enough for a failed delivery's first redeliveries (1 s, then 5 s); far shorter than its dead-lettering.
    groupGapTimeoutMs: number('SCHEDULER_GROUP_GAP_TIMEOUT_MS', 30_000),
    // Enough for a person or a busy script; a runaway client stops here instead of filling the platform.
    maxOpenGoalsPerAccount: number('SCHEDULER_MAX_OPEN_GOALS_PER_ACCOUNT', 100),
    /** A claimed delivery or team formation that makes no progress for this long is taken over again (crash). */
    leaseSeconds: 30,
  };
});

export type SchedulerConfig = ReturnType<typeof schedulerConfig>;
