#!/usr/bin/env node
// The contract classes carry decorators that read type metadata as they load.
import 'reflect-metadata';
import { CommanderError } from 'commander';
import { EventStreamError, GatewayRequestError } from '@ioa/gateway-client';
import { createProgram, EXIT_NOT_COMPLETED, EXIT_USAGE } from './cli-program.js';
import { CliUsageError } from './cli-settings.js';

/**
 * `ioa`: the command-line client of an IoA gateway (README "CLI"). Errors become one line on stderr and an exit
 * code — 2 for a wrong command or setting, 1 for anything else (a refused request, a goal that did not complete) —
 * never a stack trace.
 */
async function main(): Promise<void> {
  const program = createProgram({
    environment: process.env,
    workingDirectory: process.cwd(),
    isTerminal: process.stdout.isTTY === true,
    columns: process.stdout.columns,
    setExitCode: (code) => {
      process.exitCode = code;
    },
  });
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    process.exitCode = exitCodeOf(error);
    if (error instanceof CommanderError) return; // commander has printed the message (or the help) already
    process.stderr.write(`ioa: ${messageOf(error)}\n`);
  }
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
  if (error instanceof CliUsageError) return EXIT_USAGE;
  return EXIT_NOT_COMPLETED;
}

function messageOf(error: unknown): string {
  if (error instanceof GatewayRequestError) return `the gateway answered ${error.status}: ${error.reason}`;
  if (error instanceof EventStreamError)
    return `the event stream answered ${error.status}: ${error.body || error.message}`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

await main();
