import 'reflect-metadata';
import { describeFailure, servicePrefix, stackOptionsFromEnvironment, startStack, type RunningStack } from './stack.js';
import { runDemo } from './demo-client.js';

/**
 * `npm run demo`: starts the embedded stack on throwaway data (unless IOA_DATA_DIR, NATS_URL or DATABASE_URL say
 * otherwise), runs the demo client against it, stops everything and exits 0 on success, 1 on any failure.
 */
const stackLog = (line: string) => process.stdout.write(`${servicePrefix('stack')}${line}\n`);
const demoPrefix = servicePrefix('demo');
const say = (line = '') => process.stdout.write(`${demoPrefix}${line}\n`);

const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => interrupted.abort());

let stack: RunningStack | undefined;
let exitCode = 0;
try {
  stack = await startStack({
    ...stackOptionsFromEnvironment(process.env, { log: stackLog }),
    abort: interrupted.signal,
  });
  if (!stack.gatewayUrl) throw new Error('the demo needs the gateway (IOA_SERVICES excludes it)');
  say(`Stack is up: gateway ${stack.gatewayUrl}, NATS ${stack.natsUrl}`);
  say();
  const outcome = await Promise.race([
    runDemo({
      gatewayUrl: stack.gatewayUrl,
      apiKey: stack.adminApiKey,
      natsUrl: stack.natsUrl,
      brokerAuthenticates: stack.credentialsDir !== undefined,
      say,
    }).then(() => 'done' as const),
    stack.failure,
    new Promise<'interrupted'>((resolve) => interrupted.signal.addEventListener('abort', () => resolve('interrupted'))),
  ]);
  if (outcome === 'interrupted') throw new Error('interrupted');
  if (outcome !== 'done') throw new Error(describeFailure(outcome));
  say();
  // The launcher restarts a service that dies; the demo still passes then, but says so (the log has the details).
  const restarted = stack.processes().filter((entry) => entry.restarts > 0);
  if (restarted.length > 0) {
    say(`Survived ${restarted.map((entry) => `${entry.service} (${entry.restarts} restart(s))`).join(', ')}.`);
  }
  say('Demo finished successfully.');
} catch (error) {
  exitCode = 1;
  say();
  say(`DEMO FAILED: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await stack?.stop();
  stackLog('stopped');
}
process.exit(exitCode);
