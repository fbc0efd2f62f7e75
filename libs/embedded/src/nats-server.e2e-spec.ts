import { afterEach, describe, expect, it } from '@jest/globals';
import { networkInterfaces } from 'node:os';
import { connect } from '@nats-io/transport-node';
import { agentUrlsFor, startNatsServer, type EmbeddedNats } from './nats-server.js';

/** The first non-loopback IPv4 address of this machine: what an agent on another host would dial. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
}

async function roundTrip(url: string): Promise<string> {
  const connection = await connect({ servers: url, timeout: 2000 });
  try {
    const subscription = connection.subscribe('probe', { callback: (_error, message) => void message.respond('pong') });
    const reply = await connection.request('probe', 'ping', { timeout: 2000 });
    subscription.unsubscribe();
    return reply.string();
  } finally {
    await connection.close();
  }
}

describe('the embedded nats-server listen address', () => {
  let server: EmbeddedNats | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('listens on loopback only by default, so nothing outside this machine reaches it', async () => {
    server = await startNatsServer();
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    expect(server.agentUrls).toEqual([server.url]);
    expect(await roundTrip(server.url)).toBe('pong');
    const address = externalAddress();
    if (address) {
      // The machine's own external address is refused: the broker is bound to 127.0.0.1.
      await expect(connect({ servers: `nats://${address}:${server.port}`, timeout: 1000 })).rejects.toThrow();
    }
  });

  it('listens on every interface when asked, and names the address agents on other hosts dial', async () => {
    server = await startNatsServer({ host: '0.0.0.0' });
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    const address = externalAddress();
    expect(server.agentUrls).toEqual(agentUrlsFor('0.0.0.0', server.port));
    if (address) {
      expect(server.agentUrls).toContain(`nats://${address}:${server.port}`);
      expect(await roundTrip(`nats://${address}:${server.port}`)).toBe('pong');
    }
    expect(await roundTrip(server.url)).toBe('pong');
  });

  it('names a specific interface as it was given', () => {
    expect(agentUrlsFor('10.77.0.1', 4222)).toEqual(['nats://10.77.0.1:4222']);
    expect(agentUrlsFor('fd00::2', 4222)).toEqual(['nats://[fd00::2]:4222']);
  });
});
