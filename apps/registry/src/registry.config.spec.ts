import { registryConfig } from './registry.config.js';

describe('registry configuration', () => {
  const saved = { ...process.env };

  afterEach(() => {
    process.env = { ...saved };
  });

  it('defaults to a 30 s heartbeat TTL swept every second', () => {
    delete process.env.REGISTRY_HEARTBEAT_TTL_SECONDS;
    delete process.env.REGISTRY_PRESENCE_SWEEP_MS;
    expect(registryConfig()).toEqual({ heartbeatTtlSeconds: 30, presenceSweepMs: 1000, maxAgentsPerOwner: 500 });
  });

  it('reads both from the environment', () => {
    process.env.REGISTRY_HEARTBEAT_TTL_SECONDS = '5';
    process.env.REGISTRY_PRESENCE_SWEEP_MS = '250';
    expect(registryConfig()).toEqual({ heartbeatTtlSeconds: 5, presenceSweepMs: 250, maxAgentsPerOwner: 500 });
  });

  it('fails the boot with a readable message on a bad value', () => {
    process.env.REGISTRY_HEARTBEAT_TTL_SECONDS = 'thirty';
    expect(() => registryConfig()).toThrow(/Invalid environment[\s\S]*REGISTRY_HEARTBEAT_TTL_SECONDS/);
  });
});
