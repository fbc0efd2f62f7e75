import { registerAs } from '@nestjs/config';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** The built-in agents this service can host. */
export const BUILT_IN_AGENTS = ['code-runner', 'doc-researcher', 'writer'] as const;
export type BuiltInAgentName = (typeof BUILT_IN_AGENTS)[number];

/** Environment variables of agent-host, validated at boot. */
class AgentHostEnvironment {
  /** Owner recorded on the built-in agents' cards; only this owner may update them. */
  @IsOptional()
  @IsString()
  AGENT_HOST_OWNER?: string;

  /** Comma-separated subset of the built-in agents to host (default: all). */
  @IsOptional()
  @Matches(/^(code-runner|doc-researcher|writer)(,(code-runner|doc-researcher|writer))*$/, {
    message: 'AGENT_HOST_AGENTS must list built-in agents: code-runner, doc-researcher, writer',
  })
  AGENT_HOST_AGENTS?: string;

  /** Heartbeat period; always kept below a third of the registry's TTL. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  AGENT_HOST_HEARTBEAT_MS?: number;

  /** Tasks one hosted agent runs at the same time; the rest wait in a queue. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  AGENT_HOST_TASK_CONCURRENCY?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(600_000)
  AGENT_HOST_CODE_TIMEOUT_MS?: number;

  /** V8 heap of a code-runner child (`--max-old-space-size`). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(16)
  @Max(4096)
  AGENT_HOST_CODE_MEMORY_MB?: number;

  /** All writable memory of a code-runner child (RLIMIT_DATA): heap, buffers, native. Node alone needs ~60 MB. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(96)
  @Max(16384)
  AGENT_HOST_CODE_PROCESS_MEMORY_MB?: number;

  /** CPU seconds of a code-runner child (RLIMIT_CPU). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3600)
  AGENT_HOST_CODE_CPU_SECONDS?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  AGENT_HOST_CODE_MAX_OUTPUT_BYTES?: number;

  /** Where the researcher's documents are (default: `apps/agent-host/documents` of this repository). */
  @IsOptional()
  @IsString()
  AGENT_HOST_DOCUMENTS_DIR?: string;

  /** Run the platform communicator (speaks for agents that do not speak for themselves). Default true. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value === 'true' : value))
  @IsBoolean()
  AGENT_HOST_COMMUNICATOR?: boolean;

  /**
   * This replica's stable name for the work it owns (unique per replica, e.g. the pod or container name). With it a
   * restarted replica takes its unfinished work back at once; without it (a fresh id per process) the work is taken
   * over when its lease runs out.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._:-]{1,200}$/, { message: 'AGENT_HOST_INSTANCE_ID must be 1-200 of A-Z a-z 0-9 . _ : -' })
  AGENT_HOST_INSTANCE_ID?: string;

  /** How long a replica's hold on accepted work lasts without renewal; a dead replica's work moves on after it. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(500)
  @Max(600_000)
  AGENT_HOST_WORK_LEASE_MS?: number;

  /** Turns the communicator works on at the same time. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  AGENT_HOST_TURN_CONCURRENCY?: number;
}

function numberOr(value: string | undefined, fallback: number): number {
  return value === undefined || value === '' ? fallback : Number(value);
}

export const agentHostConfig = registerAs('agentHost', () => {
  validateEnvironment(process.env, AgentHostEnvironment);
  const env = process.env;
  const agents = (
    env.AGENT_HOST_AGENTS ? env.AGENT_HOST_AGENTS.split(',') : [...BUILT_IN_AGENTS]
  ) as BuiltInAgentName[];
  return {
    owner: env.AGENT_HOST_OWNER || 'ioa-builtin',
    agents: [...new Set(agents)],
    heartbeatIntervalMs: numberOr(env.AGENT_HOST_HEARTBEAT_MS, 10_000),
    taskConcurrency: numberOr(env.AGENT_HOST_TASK_CONCURRENCY, 4),
    codeRunner: {
      timeoutMs: numberOr(env.AGENT_HOST_CODE_TIMEOUT_MS, 10_000),
      memoryMb: numberOr(env.AGENT_HOST_CODE_MEMORY_MB, 64),
      processMemoryMb: numberOr(env.AGENT_HOST_CODE_PROCESS_MEMORY_MB, 256),
      cpuSeconds: numberOr(env.AGENT_HOST_CODE_CPU_SECONDS, 10),
      maxOutputBytes: numberOr(env.AGENT_HOST_CODE_MAX_OUTPUT_BYTES, 64 * 1024),
    },
    documentsDir: env.AGENT_HOST_DOCUMENTS_DIR || undefined,
    ownership: {
      instanceId: env.AGENT_HOST_INSTANCE_ID || undefined,
      leaseMs: numberOr(env.AGENT_HOST_WORK_LEASE_MS, 15_000),
      /** A task or turn taken on this many times (each time its replica died) is given up: it crashes replicas. */
      maxClaims: 3,
    },
    communicator: {
      enabled:
        env.AGENT_HOST_COMMUNICATOR === undefined ||
        env.AGENT_HOST_COMMUNICATOR === '' ||
        env.AGENT_HOST_COMMUNICATOR === 'true',
      turnConcurrency: numberOr(env.AGENT_HOST_TURN_CONCURRENCY, 32),
      /** Re-proposals after a rejected move, each told the rejection reason. */
      moveRetries: 2,
      /** How long an agent card stays cached (skills and the `communicator` flag change rarely). */
      cardCacheMs: 30_000,
    },
  };
});

export type AgentHostConfig = ReturnType<typeof agentHostConfig>;
