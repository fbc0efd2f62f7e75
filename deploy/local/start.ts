import 'reflect-metadata';
import { join } from 'node:path';
import {
  describeFailure,
  REPOSITORY_ROOT,
  servicePrefix,
  stackOptionsFromEnvironment,
  startStack,
  type RunningStack,
} from './stack.js';

/**
 * `npm start`: brings the whole stack up and keeps it running until Ctrl-C (SIGINT) or SIGTERM. Data persists in
 * `.data/` between runs. A service that dies is restarted with backoff, as `restart: unless-stopped` would, and the
 * log says which one, how it died and when it is back (`supervised-process.ts`). With `IOA_RESTART=no` a service
 * that dies takes the stack down with a loud report instead.
 */
const prefix = servicePrefix('stack');
const log = (line: string) => process.stdout.write(`${prefix}${line}\n`);

const startup = new AbortController();
let stack: RunningStack | undefined;
let stopping: Promise<never> | undefined;

function shutDown(reason: string, exitCode: number): Promise<never> {
  stopping ??= (async () => {
    log(`${reason}: stopping the stack`);
    await stack?.stop();
    log('stopped');
    process.exit(exitCode);
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // While starting, abort: startStack then stops whatever it had started and rejects.
    if (!stack) startup.abort();
    else void shutDown(`received ${signal}`, 0);
  });
}

try {
  stack = await startStack({
    ...stackOptionsFromEnvironment(process.env, { dataDir: join(REPOSITORY_ROOT, '.data'), log }),
    abort: startup.signal,
  });
} catch (error) {
  log(
    `${startup.signal.aborted ? 'stopped' : 'could not start'}: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(startup.signal.aborted ? 0 : 1);
}

const banner = [
  '',
  `IoA is up. Gateway:  ${stack.gatewayUrl ?? '(not started)'}`,
  ...(stack.gatewayUrl
    ? [`  agents:            ${stack.gatewayUrl}/v1/agents`, `  API docs:          ${stack.gatewayUrl}/docs`]
    : []),
  `NATS for agents:     ${stack.agentNatsUrls.join(', ')}`,
  ...(stack.agentNatsUrls.every((url) => url.includes('//127.0.0.1:'))
    ? ['  (this machine only: IOA_NATS_HOST=0.0.0.0 lets agents on other hosts join; docs/architecture.md)']
    : []),
  ...(stack.gatewayUrl
    ? [
        `Admin API key:       ${stack.adminApiKeyFile ?? '(IOA_ADMIN_API_KEY)'}; every REST call needs a key, e.g.`,
        `  curl -H "Authorization: Bearer ${stack.adminApiKeyFile ? `$(cat ${stack.adminApiKeyFile})` : '$IOA_ADMIN_API_KEY'}" ${stack.gatewayUrl}/v1/agents`,
        `  (more keys and accounts: POST ${stack.gatewayUrl}/v1/accounts, docs/security.md)`,
        `Web console:         ${stack.gatewayUrl}/?key=${stack.adminApiKeyFile ? `$(cat ${stack.adminApiKeyFile})` : '$IOA_ADMIN_API_KEY'}  (or open ${stack.gatewayUrl}/ and paste the key)`,
      ]
    : []),
  ...(stack.trustDir
    ? [
        `NATS credentials:    ${stack.trustDir} (JWT authentication is always on; services: ${stack.credentialsDir})`,
        ...(stack.gatewayUrl
          ? [
              '  an agent makes its own nkey pair and gets its user JWT for the public key:',
              `  POST ${stack.gatewayUrl}/v1/agents/identities {"publicKey": "U..."} (docs/security.md)`,
            ]
          : []),
      ]
    : [`NATS credentials:    ${stack.credentialsDir ?? '(none: external NATS without NATS_CREDENTIALS_DIR)'}`]),
  'Press Ctrl-C to stop.',
  '',
];
for (const line of banner) log(line);

// Resolves only with IOA_RESTART=no: otherwise a dead service is restarted and the stack stays up.
const failure = await stack.failure;
log('');
for (const line of `!!! ${describeFailure(failure)}`.split('\n')) log(line);
log('');
await shutDown(`${failure.service} died`, 1);
