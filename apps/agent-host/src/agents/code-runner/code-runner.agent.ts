import { Inject, Injectable } from '@nestjs/common';
import type { RegisterAgentV1Request } from '@ioa/contracts';
import { agentHostConfig, type AgentHostConfig } from '../../agent-host.config.js';
import type { HostedAgent, TaskOutcome, TaskWork } from '../hosted-agent.js';
import { extractJavaScript } from './extract-code.js';
import { runJavaScript, type SandboxLimits, type SandboxResult } from './javascript-sandbox.js';

const STDERR_EXCERPT = 4000;

/**
 * Runs the JavaScript of a brief in a separate, time-, CPU- and memory-limited process without network. At most
 * `concurrency` children run at once per agent-host, so hostile tasks can take at most that many times the process
 * memory cap.
 */
@Injectable()
export class CodeRunnerAgent implements HostedAgent {
  readonly name = 'code-runner' as const;
  readonly concurrency = 2; // each task is a whole node process

  constructor(@Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig) {}

  card(owner: string): RegisterAgentV1Request {
    const limits = this.config.codeRunner;
    return {
      name: this.name,
      description:
        'Runs JavaScript and returns what it prints. Each task runs in its own Node.js process with no network, no ' +
        `file system, ${limits.processMemoryMb} MB of memory (${limits.memoryMb} MB of it heap), ` +
        `${limits.cpuSeconds} s of CPU and a ${Math.round(limits.timeoutMs / 1000)} s time limit.`,
      skills: [
        {
          id: 'run-javascript',
          name: 'Run JavaScript',
          description:
            'Executes JavaScript code given in the task (in backticks or a fenced block) and returns its standard ' +
            'output, errors and exit code. Good for calculations, algorithms, data transformation and checking code.',
          tags: ['javascript', 'code', 'compute', 'calculation', 'execution'],
          examples: [
            'Run `console.log([3, 1, 2].sort())`',
            'Compute the sum of the first 100 primes with JavaScript',
            'Execute this snippet and tell me what it prints',
          ],
        },
      ],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      owner,
      endpoint: { kind: 'nats' },
      version: '1.0.0',
      provider: { organization: 'IoA built-in agents' },
      metadata: { builtIn: true, runtime: `node ${process.version}`, limits },
    };
  }

  async run({ assignment, signal }: TaskWork): Promise<TaskOutcome> {
    const code = extractJavaScript(assignment.brief);
    if (!code) {
      return {
        state: 'rejected',
        content: 'The brief contains no JavaScript to run (put it in backticks or a fenced block).',
      };
    }
    const untilDeadline = Date.parse(assignment.deadline) - Date.now();
    const timeoutMs = Math.max(
      100,
      Math.min(this.config.codeRunner.timeoutMs, Number.isFinite(untilDeadline) ? untilDeadline : Infinity),
    );
    const limits = { ...this.config.codeRunner, timeoutMs };
    return describeRun(await runJavaScript(code, limits, signal), limits);
  }
}

/** The report of a run: stdout first (it is the answer), then stderr and how the process ended. */
export function describeRun(result: SandboxResult, limits: SandboxLimits): TaskOutcome {
  const stdout = result.stdout.trimEnd();
  const stderr = result.stderr.trimEnd();
  const parts = [stdout.length > 0 ? stdout : '(no output)'];
  if (stderr.length > 0) parts.push(`stderr:\n${stderr.slice(0, STDERR_EXCERPT)}`);
  let ending: string;
  if (result.timedOut) ending = `killed after the ${limits.timeoutMs} ms time limit`;
  else if (result.memoryExceeded)
    ending = `stopped: out of memory (limits: ${limits.memoryMb} MB heap, ${limits.processMemoryMb} MB in all)`;
  else if (result.cpuExceeded) ending = `killed: the ${limits.cpuSeconds} s CPU time limit was exceeded`;
  else if (result.outputExceeded) ending = 'killed: too much output';
  else if (result.signal) ending = `killed by ${result.signal}`;
  else ending = `exit code ${result.exitCode}`;
  parts.push(`(${ending}, ${result.durationMs} ms)`);
  const ok =
    result.exitCode === 0 &&
    !result.timedOut &&
    !result.outputExceeded &&
    !result.memoryExceeded &&
    !result.cpuExceeded;
  return { state: ok ? 'completed' : 'failed', content: parts.join('\n\n') };
}
