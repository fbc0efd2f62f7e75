import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runConformance } from '@ioa/agent-sdk';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { buildGoAgent, startGoAgent, type RunningGoAgent } from './go-agent.testing.js';

/**
 * The Go agent (Debian's Go and nats.go, nothing of ours) against the conformance kit on a real nats-server: it
 * passes every rule that applies to an agent the platform speaks for, and stops cleanly on SIGTERM.
 */
describe('the Go example agent', () => {
  let nats: EmbeddedNats;
  let binary: string;
  let agent: RunningGoAgent | undefined;

  beforeAll(async () => {
    nats = await startNatsServer();
    binary = await buildGoAgent();
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    await nats?.stop();
  });

  it('passes the conformance kit, then shuts down cleanly', async () => {
    agent = startGoAgent(binary, { NATS_URL: nats.url, AGENT_NAME: 'go-converter', WORK_MS: '1500' });
    const results = await runConformance({ servers: nats.url, agent: 'go-converter', ttlSeconds: 3 });
    const failed = results.filter((result) => result.status === 'fail');
    expect({ failed, log: failed.length > 0 ? agent.log() : '' }).toEqual({ failed: [], log: '' });
    expect(results.filter((result) => result.status === 'pass')).toHaveLength(10);
    expect(results.find((result) => result.id === 'task.result')?.evidence).toContain('completed');

    expect(await agent.stop()).toBe(0);
    expect(agent.log()).toContain('stopped');
  }, 120_000);
});
