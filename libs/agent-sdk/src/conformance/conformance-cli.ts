#!/usr/bin/env node
import { parseArgs } from 'node:util';
// class-transformer's @Type in the contract classes needs the Reflect metadata API, loaded before they are.
import 'reflect-metadata';
import { runConformance, type RuleResult } from './run-conformance.js';

/**
 * `npm run conformance -- --nats URL --agent NAME` (or `ioa-conformance` from the package): drives a running agent
 * through the contract and prints each rule as PASS, FAIL or SKIP with its evidence. Exit code 0 only when no rule
 * failed; 2 for a usage error.
 */
const usage = `usage: conformance --nats <url> --agent <name> [--ttl <seconds>] [--wait <seconds>] [--task-seconds <seconds>]

Run it on a broker where the IoA platform is NOT running: the kit plays the registry, the scheduler and the chat
itself, so it can provoke what the rules are about. Start the agent against the same broker, before or after.`;

let parsed;
try {
  parsed = parseArgs({
    options: {
      nats: { type: 'string' },
      agent: { type: 'string' },
      ttl: { type: 'string', default: '6' },
      wait: { type: 'string', default: '60' },
      'task-seconds': { type: 'string', default: '30' },
      help: { type: 'boolean', default: false },
    },
  }).values;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
  process.exit(2);
}
const numbers = { ttl: Number(parsed.ttl), wait: Number(parsed.wait), task: Number(parsed['task-seconds']) };
if (parsed.help || !parsed.nats || !parsed.agent || Object.values(numbers).some((n) => !(n > 0))) {
  process.stderr.write(`${usage}\n`);
  process.exit(parsed.help ? 0 : 2);
}

const print = (result: RuleResult) =>
  process.stdout.write(`${result.status.toUpperCase().padEnd(4)}  ${result.id.padEnd(36)} ${result.evidence}\n`);

process.stdout.write(`IoA agent conformance: agent "${parsed.agent}" on ${parsed.nats} (TTL ${numbers.ttl} s)\n`);
try {
  const results = await runConformance({
    servers: parsed.nats.split(','),
    agent: parsed.agent,
    ttlSeconds: numbers.ttl,
    waitSeconds: numbers.wait,
    taskSeconds: numbers.task,
    onResult: print,
  });
  const failed = results.filter((result) => result.status === 'fail');
  const passed = results.filter((result) => result.status === 'pass').length;
  const skipped = results.length - passed - failed.length;
  process.stdout.write(`${passed} passed, ${failed.length} failed, ${skipped} skipped of ${results.length} rules\n`);
  process.exit(failed.length === 0 ? 0 : 1);
} catch (error) {
  process.stderr.write(`conformance run failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
