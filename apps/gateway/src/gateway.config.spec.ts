import { DEFAULT_GATEWAY_PORT, gatewayConfig } from './gateway.config.js';

describe('the gateway configuration', () => {
  const saved = {
    GATEWAY_PORT: process.env.GATEWAY_PORT,
    GATEWAY_HEALTH_TIMEOUT_MS: process.env.GATEWAY_HEALTH_TIMEOUT_MS,
  };

  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('listens on 8080 and waits at most a second for health answers by default', () => {
    delete process.env.GATEWAY_PORT;
    delete process.env.GATEWAY_HEALTH_TIMEOUT_MS;
    expect(gatewayConfig()).toEqual({ port: DEFAULT_GATEWAY_PORT, healthTimeoutMs: 1000 });
    expect(DEFAULT_GATEWAY_PORT).toBe(8080);
  });

  it('reads GATEWAY_PORT and GATEWAY_HEALTH_TIMEOUT_MS', () => {
    process.env.GATEWAY_PORT = '9090';
    process.env.GATEWAY_HEALTH_TIMEOUT_MS = '250';
    expect(gatewayConfig()).toEqual({ port: 9090, healthTimeoutMs: 250 });
  });

  it('refuses to boot on a port that is not a number, saying which variable is wrong', () => {
    process.env.GATEWAY_PORT = 'eighty';
    expect(() => gatewayConfig()).toThrow(/GATEWAY_PORT must be an integer/);
  });
});
