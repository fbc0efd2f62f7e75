import { readFileSync } from 'node:fs';
import { agentIdentityFromCreds } from '@ioa/agent-sdk';
import { startWeatherAgent } from './weather-agent.js';

/**
 * `node dist/examples/weather-agent/main.js`: runs the example agent until Ctrl-C. NATS_URL picks the broker (the
 * address `npm start` prints), AGENT_NAME another name, SPEAKS_FOR_ITSELF=true its own voice in group chats,
 * AGENT_CREDS the creds file of its identity (required by a broker with authentication: docs/contract.md, "Joining
 * as an external agent") and AGENT_OWNER its account id.
 */
const credsFile = process.env.AGENT_CREDS;
const identity = credsFile
  ? { ...agentIdentityFromCreds(readFileSync(credsFile, 'utf8')), accountId: process.env.AGENT_OWNER || undefined }
  : undefined;
const agent = await startWeatherAgent({
  identity,
  servers: (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(','),
  name: process.env.AGENT_NAME || undefined,
  speaksForItself: process.env.SPEAKS_FOR_ITSELF === 'true',
  log: ({ level, message }) => process.stderr.write(`[${level}] ${message}\n`),
});
process.stderr.write(`[info] ${agent.agentCard.name} is online as ${agent.id}; Ctrl-C stops it\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void agent.stop().then(() => process.exit(0));
  });
}
